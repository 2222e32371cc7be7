// The error hierarchy and CUDA error messages: what was called, what failed, where.
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <string>

namespace nd = ndcuda;

TEST(Error, HierarchyDerivesFromNdError) {
  EXPECT_THROW(throw nd::shape_error("x"), nd::error);
  EXPECT_THROW(throw nd::capture_error("x"), nd::error);
  EXPECT_THROW(throw nd::device_error("x"), nd::error);
  EXPECT_THROW(throw nd::out_of_memory("x"), nd::error);
  EXPECT_THROW(throw nd::compile_error("x", "src", "log"), nd::error);
  EXPECT_THROW(throw nd::error("x"), std::runtime_error);
}

TEST(Error, CudaCheckNamesCallCodeAndLocation) {
  // No GPU needed: the runtime reports codes and names without a device.
  try {
    NDCUDA_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "expected cuda_error";
  } catch (const nd::cuda_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidValue));
    EXPECT_EQ(e.name(), "cudaErrorInvalidValue");
    EXPECT_EQ(e.call(), "cudaErrorInvalidValue");
    EXPECT_NE(what.find("cudaErrorInvalidValue (1)"), std::string::npos) << what;
    EXPECT_NE(e.where().find("tests/core/error_test.cpp:"), std::string::npos) << e.where();
    EXPECT_NE(what.find(e.where()), std::string::npos) << what;
  }
  EXPECT_NO_THROW(NDCUDA_CUDA_CHECK(cudaSuccess));
}

TEST(Error, CompileErrorKeepsSourceAndLog) {
  nd::compile_error e("kernel k failed", "int main(", "error: expected )");
  EXPECT_EQ(e.source(), "int main(");
  EXPECT_EQ(e.log(), "error: expected )");
  EXPECT_STREQ(e.what(), "kernel k failed");
}
