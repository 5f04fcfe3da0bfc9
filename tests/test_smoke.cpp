#include "helpers.h"
BOOST_AUTO_TEST_SUITE(smoke)
BOOST_AUTO_TEST_CASE(loads) { BOOST_TEST(kvplan::load_model("Qwen/Qwen3-0.6B").layers.size() == 28u); }
BOOST_AUTO_TEST_SUITE_END()
