// Two-output ufuncs (divmod, frexp, modf) as one fused kernel: the second output is a computed
// input whose elements are writable slots (kernels/output_slot.cuh), so every layout variant of the
// elementwise engine writes both arrays in one pass. See expr/pair_outputs.hpp.
#include <map>
#include <memory>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/expr/detail/codegen.hpp>
#include <ndcuda/expr/pair_outputs.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace ndcuda::detail {
namespace {

const char* kind_name(pair_kind k) {
  switch (k) {
    case pair_kind::divmod:
      return "divmod";
    case pair_kind::frexp:
      return "frexp";
    case pair_kind::modf:
      return "modf";
  }
  return "?";
}

/// The slot's parameter block, byte for byte kernels/output_slot.cuh's output_slot<T>.
struct slot_param {
  void* p;
  std::uint64_t unused[2];
};
static_assert(sizeof(slot_param) == source_param_size);

std::string slot_type(dtype t) {
  return "ndcuda::detail::output_slot<" + std::string(cuda_type_name(t)) + ">";
}

// The body: `out` and the slot (the input after the operands) get the two results, each converted
// from the compute type to its output's dtype.
std::string pair_body(pair_kind kind, std::span<const std::string> operands, dtype compute, dtype first, dtype second,
                      const std::string& slot) {
  const dtype c = compute_type(compute);
  const std::string ct(cuda_type_name(c));
  const auto out_as = [](dtype to, const std::string& text, dtype from) {
    return converted_code(to, node_code{text, from});
  };
  switch (kind) {
    case pair_kind::divmod: {
      const std::string args = "(" + operands[0] + ", " + operands[1] + ")";
      return "out = " + out_as(first, "ndcuda::nd_floor_divide" + args, c) + "; " + slot + ".set(" +
             out_as(second, "ndcuda::nd_remainder" + args, c) + ")";
    }
    case pair_kind::frexp:
      return "int e_; out = " + out_as(first, "ndcuda::nd_frexp(" + operands[0] + ", e_)", c) + "; " + slot +
             ".set(e_)";
    case pair_kind::modf:
      return ct + " i_; out = " + out_as(first, "ndcuda::nd_modf(" + operands[0] + ", i_)", c) + "; " + slot + ".set(" +
             out_as(second, "i_", c) + ")";
  }
  return {};
}

using key_t = std::tuple<int, std::vector<std::pair<bool, int>>, int, int, int>;

}  // namespace

const jit::detail::elementwise_state& pair_state(pair_kind kind, std::span<const pair_operand> in, dtype compute,
                                                 dtype first, dtype second) {
  static std::mutex mutex;
  static std::map<key_t, std::shared_ptr<jit::detail::elementwise_state>> states;
  key_t key{static_cast<int>(kind), {}, static_cast<int>(compute), static_cast<int>(first), static_cast<int>(second)};
  for (const pair_operand& o : in) {
    std::get<1>(key).emplace_back(o.array != nullptr, static_cast<int>(o.array != nullptr ? o.array->type : o.type));
  }
  std::lock_guard lock(mutex);
  if (const auto it = states.find(key); it != states.end()) {
    return *it->second;
  }
  const dtype c = compute_type(compute);
  std::vector<std::string> operands;
  std::vector<leaf_ref> arrays;
  std::vector<dtype> scalars;
  std::string label = std::string(kind_name(kind)) + "(";
  for (const pair_operand& o : in) {
    const bool array = o.array != nullptr;
    const int index = array ? static_cast<int>(arrays.size()) : static_cast<int>(scalars.size());
    const std::string name = array ? input_name(index) : scalar_name(index);
    operands.push_back(converted_code(c, node_code{name, array ? o.array->type : o.type}));
    label += (operands.size() > 1 ? ", " : "") + (array ? input_label(index) : name);
    if (array) {
      arrays.push_back(*o.array);
    } else {
      scalars.push_back(o.type);
    }
  }
  label += ")";
  const std::string slot = slot_type(second);
  // Only the slot's dtype and source are read while the state is made.
  arrays.push_back(leaf_ref{nullptr, nullptr, second, nullptr, 0, nullptr, slot.c_str()});
  const std::string body =
      pair_body(kind, operands, compute, first, second, input_name(static_cast<int>(arrays.size() - 1)));
  auto state = make_expression_state(body, kind_name(kind), first, arrays, scalars, label);
  return *states.emplace(std::move(key), std::move(state)).first->second;
}

void run_pair(pair_kind kind, std::span<const pair_operand> in, dtype compute, const leaf_ref& first,
              const leaf_ref& second) {
  if (second.layout->shape != first.layout->shape || !(*second.s == *first.s) || second.device != first.device) {
    throw error(std::string(kind_name(kind)) + ": both outputs must have one shape, stream and device");
  }
  const jit::detail::elementwise_state& state = pair_state(kind, in, compute, first.type, second.type);
  std::vector<leaf_ref> inputs;
  std::vector<const void*> scalars;
  for (const pair_operand& o : in) {
    if (o.array != nullptr) {
      inputs.push_back(*o.array);
    } else {
      scalars.push_back(o.scalar);
    }
  }
  scalars.push_back(nullptr);
  slot_param param{const_cast<void*>(second.data), {0, 0}};
  leaf_ref slot = second;
  slot.data = &param;
  slot.source = "output slot";  // marks a computed input: no overlap check, no alignment
  inputs.push_back(slot);
  run_expression(state, first, inputs, scalars.data());
}

}  // namespace ndcuda::detail
