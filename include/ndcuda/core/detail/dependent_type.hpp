// detail::dependent_t<T, U...>: T, spelled so that it depends on template parameters. A header's
// function template that computes on, say, ndarray<double> locals (not on its own parameters)
// otherwise makes every translation unit that includes the header instantiate those expressions
// and reductions, used or not: the compiler binds and instantiates non-dependent calls where the
// template is defined. With the locals' type dependent, that work happens only where the
// template is used (tools/header-cost.sh measures it).
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

namespace ndcuda::detail {

template <class T, class... Us>
struct dependent_type_of {
  using type = T;
};

/// T, dependent on Us.
template <class T, class... Us>
using dependent_t = typename dependent_type_of<T, Us...>::type;

}  // namespace ndcuda::detail

#pragma GCC visibility pop
