#define BOOST_TEST_MODULE kvplan
#include <boost/test/unit_test.hpp>
