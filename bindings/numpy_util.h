#pragma once
// Hand a std::vector to numpy without copying: the array owns the vector through a capsule.
#include <vector>

#include <pybind11/numpy.h>

namespace kvplan::py {

template <class T>
pybind11::array vector_to_array(std::vector<T>&& v, std::vector<pybind11::ssize_t> shape,
                                pybind11::dtype dt = pybind11::dtype::of<T>()) {
  auto* owned = new std::vector<T>(std::move(v));
  pybind11::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return pybind11::array(dt, std::move(shape), owned->data(), owner);
}

}  // namespace kvplan::py
