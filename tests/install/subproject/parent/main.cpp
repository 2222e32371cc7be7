// The parent's program: ndcuda as a subproject builds like any CMake target.
#include <cstdio>
#include <ndcuda/version.hpp>

int main() {
  std::printf("parent_app: ndcuda %s\n", NDCUDA_VERSION_STRING);
  return 0;
}
