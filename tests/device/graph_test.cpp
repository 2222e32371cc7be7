// Graph capture checks that need no GPU: refusing the legacy stream before CUDA is asked, the
// names of the modes, and the errors of an empty nd::graph.
#include <gtest/gtest.h>

#include <ndcuda/core/error.hpp>
#include <ndcuda/device/graph.hpp>
#include <string>

namespace nd = ndcuda;

TEST(Graph, CaptureOnTheLegacyStreamIsRefusedBeforeCudaIsCalled) {
  for (cudaStream_t legacy : {static_cast<cudaStream_t>(nullptr), cudaStreamLegacy}) {
    bool ran = false;
    try {
      (void)nd::capture(legacy, [&] { ran = true; });
      ADD_FAILURE() << "a capture on the legacy stream was accepted";
    } catch (const nd::capture_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("legacy NULL stream"), std::string::npos) << what;
      EXPECT_NE(what.find("nd::stream"), std::string::npos) << "the message should name the fix: " << what;
    }
    EXPECT_FALSE(ran) << "the captured function ran although the capture was refused";
    EXPECT_THROW(nd::capture_scope scope(legacy), nd::capture_error);
  }
}

TEST(Graph, ModesHaveCudasNames) {
  EXPECT_STREQ(nd::to_string(nd::capture_mode::global), "global");
  EXPECT_STREQ(nd::to_string(nd::capture_mode::thread_local_), "thread_local");
  EXPECT_STREQ(nd::to_string(nd::capture_mode::relaxed), "relaxed");
}

TEST(Graph, AnEmptyGraphSaysWhereGraphsComeFrom) {
  const nd::graph g;
  EXPECT_FALSE(g);
  EXPECT_EQ(g.handle(), nullptr);
  EXPECT_EQ(g.exec_handle(), nullptr);
  try {
    g.debug_dot("/tmp/never-written.dot");
    ADD_FAILURE() << "debug_dot on an empty graph did not throw";
  } catch (const nd::error& e) {
    EXPECT_NE(std::string(e.what()).find("nd::capture"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)g.node_count(), nd::error);
  EXPECT_THROW((void)g.device(), nd::error);
}
