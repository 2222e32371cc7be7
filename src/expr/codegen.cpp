// Spelling expression nodes as CUDA and launching the fused kernel: kept out of the templates so
// each expression type instantiates only its tree walk.
#include <algorithm>
#include <ndcuda/array/detail/kernels.hpp>
#include <ndcuda/core/checked_size.hpp>
#include <ndcuda/core/detail/nvtx.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/expr/detail/codegen.hpp>
#include <ndcuda/expr/evaluate.hpp>
#include <ndcuda/expr/expression.hpp>
#include <ndcuda/memory/detail/buffer.hpp>

#include "expr/expression_label.hpp"
#include "jit/elementwise_state.hpp"

namespace ndcuda::detail {

static_assert(max_fused_inputs == static_cast<int>(jit::detail::elementwise_max_inputs) &&
                  max_fused_scalars == static_cast<int>(jit::detail::elementwise_max_scalars),
              "evaluate.hpp's fusion limits must be the elementwise engine's");

namespace {

std::string converted(dtype to, const node_code& c) {
  if (c.value == to) {
    return c.text;
  }
  return "ndcuda::cast<" + std::string(cuda_type_name(to)) + ">(" + c.text + ")";
}

}  // namespace

std::string converted_code(dtype to, const node_code& c) {
  return converted(to, c);
}

node_code emit_operation(spelling s, dtype input, dtype result, std::span<const node_code> args, const char* name) {
  const dtype in = compute_type(input);
  const dtype out = compute_type(result);
  const std::string out_type(cuda_type_name(out));
  std::string text;
  switch (s.how) {
    case form::call:
      text = std::string(s.text) + "(";
      for (std::size_t i = 0; i < args.size(); ++i) {
        text += i == 0 ? "" : ", ";
        text += converted(in, args[i]);
      }
      text += ")";
      break;
    case form::infix:
      // The cast keeps narrow integers narrow (C++ would compute in int) and bools bool.
      text = "((" + out_type + ")(" + converted(in, args[0]) + " " + s.text + " " + converted(in, args[1]) + "))";
      break;
    case form::prefix:
      text = "((" + out_type + ")(" + s.text;
      text += converted(in, args[0]);
      text += "))";
      break;
    case form::cast:
      // Through the exact dtype first: astype<float16>() inside a float32 computation rounds.
      text = out == result ? converted(out, args[0])
                           : "ndcuda::cast<" + out_type + ">(" + converted(result, args[0]) + ")";
      break;
    case form::where:
      text = "(";
      text += converted(dtype::bool_, args[0]);
      text += " ? ";
      text += converted(in, args[1]);
      text += " : ";
      text += converted(in, args[2]);
      text += ")";
      break;
  }
  node_code code{std::move(text), out};
  label_operation(code, name, s.how, result, args);
  return code;
}

std::string store_statement(dtype out, const node_code& root) {
  return "out = " + converted(out, root);
}

namespace {
// A reference to value k in an interned text. '@' appears nowhere else in generated code.
std::string value_reference(int k) {
  return "@" + std::to_string(k) + "@";
}

// `text` with every reference k replaced by what(k).
template <class What>
std::string replace_references(const std::string& text, What&& what) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '@') {
      out += text[i];
      continue;
    }
    const std::size_t end = text.find('@', i + 1);
    what(std::stoi(text.substr(i + 1, end - i - 1)), out);
    i = end;
  }
  return out;
}
}  // namespace

node_code value_table::intern(node_code code) {
  const auto [it, fresh] = ids_.try_emplace(code.text, static_cast<int>(values_.size()));
  if (fresh) {
    values_.push_back({code.text, code.value, 1});
  } else {
    ++values_[static_cast<std::size_t>(it->second)].uses;
    // The repeat's arguments were counted as used by it; the repeat is the first one, so they are not.
    (void)replace_references(code.text,
                             [&](int k, std::string& /*out*/) { --values_[static_cast<std::size_t>(k)].uses; });
  }
  code.text = value_reference(it->second);
  return code;
}

std::string value_table::body(dtype out, const node_code& root) const {
  std::vector<std::string> resolved(values_.size());
  const auto resolve = [&](const std::string& text) {
    return replace_references(text, [&](int k, std::string& to) { to += resolved[static_cast<std::size_t>(k)]; });
  };
  std::string locals;
  for (std::size_t k = 0; k < values_.size(); ++k) {
    std::string text = resolve(values_[k].text);
    if (values_[k].uses > 1) {
      resolved[k] = "ndcuda_v" + std::to_string(k);
      locals += "const " + std::string(cuda_type_name(values_[k].type)) + " " + resolved[k] + " = " + text + ";\n";
    } else {
      resolved[k] = std::move(text);
    }
  }
  node_code stored = root;
  stored.text = resolve(root.text);
  return locals + store_statement(out, stored);
}

std::shared_ptr<jit::detail::elementwise_state> make_expression_state(const std::string& body, const char* name,
                                                                      dtype out, std::span<const leaf_ref> inputs,
                                                                      std::span<const dtype> scalars,
                                                                      const std::string& label) {
  std::vector<dtype> in;
  std::vector<std::string> sources;
  in.reserve(inputs.size());
  for (const leaf_ref& l : inputs) {
    in.push_back(l.type);
    sources.emplace_back(l.source != nullptr ? l.source : "");
  }
  auto state =
      jit::detail::make_elementwise_state(body, std::string("nd_") + name, out, std::move(in),
                                          std::vector<dtype>(scalars.begin(), scalars.end()), std::move(sources));
  jit::detail::attach_tier0(*state);
  // Once per expression type: every launch then opens its range from this handle.
  state->nvtx = nvtx_register("elementwise " + clipped_label(label.empty() ? std::string(name) : label));
  return state;
}

namespace {

jit::detail::operand operand_of(const leaf_ref& l) {
  return {l.data, l.layout->shape, l.layout->strides};
}

void launch(const jit::detail::elementwise_state& state, const leaf_ref& out, std::span<const leaf_ref> inputs,
            const void* const* scalars, const stream& s) {
  const shape_t& shape = out.layout->shape;
  bool dense = is_c_contiguous(shape, out.layout->strides);
  for (const leaf_ref& in : inputs) {
    dense = dense && in.layout->shape == shape && is_c_contiguous(shape, in.layout->strides);
  }
  std::array<const void*, jit::detail::elementwise_max_inputs> pointers{};
  if (dense) {  // the common case: no per-launch vectors, no broadcasting work
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      pointers[i] = inputs[i].data;
    }
    jit::detail::launch_elementwise(state, shape_size(shape), const_cast<void*>(out.data), pointers.data(), s, scalars);
    return;
  }
  std::vector<jit::detail::operand> operands;
  operands.reserve(inputs.size());
  for (const leaf_ref& in : inputs) {
    operands.push_back(operand_of(in));
  }
  jit::detail::launch_elementwise(state, operand_of(out), operands, s, scalars);
}

// The value's shape is the broadcast of its operands' (NumPy evaluates the right side first), and
// it must broadcast to the target: checking each operand against the target alone would name the
// wrong shapes ("(1,4) and requested shape (3,1)" for a (3,4) value into (3,1)).
void check_fits_target(std::span<const leaf_ref> inputs, const shape_t& target) {
  if (std::all_of(inputs.begin(), inputs.end(), [&](const leaf_ref& in) { return in.layout->shape == target; })) {
    return;  // the common case allocates nothing
  }
  shape_t value = inputs.front().layout->shape;
  for (const leaf_ref& in : inputs.subspan(1)) {
    if (in.layout->shape != value) {
      value = broadcast_shapes(value, in.layout->shape);
    }
  }
  check_assignable(value, target);
}

}  // namespace

void before_leaf_launch(const stream& s, const leaf_ref& out, std::span<const leaf_ref> inputs) {
  for (const leaf_ref& in : inputs) {
    if (!(*in.s == s)) {
      order_after(s, *in.s);
    }
  }
  retain_for_capture(s, std::span<const leaf_ref>(&out, 1));
  retain_for_capture(s, inputs);
}

void release_sources_after(const stream& s, std::span<const leaf_ref> leaves) {
  for (const leaf_ref& leaf : leaves) {
    if (leaf.source != nullptr && !(*leaf.s == s)) {
      order_after(*leaf.s, s);
    }
  }
}

void retain_for_capture(const stream& s, std::span<const leaf_ref> leaves) {
  if (!captures_active()) {
    return;
  }
  for (const leaf_ref& leaf : leaves) {
    if (leaf.owner != nullptr) {
      (void)retain_for_capture(s, *leaf.owner);
    }
  }
}

void run_expression(const jit::detail::elementwise_state& state, const leaf_ref& out, std::span<const leaf_ref> inputs,
                    const void* const* scalars) {
  const nvtx_scope range(state.nvtx);
  const stream& s = *out.s;
  const shape_t& shape = out.layout->shape;
  check_fits_target(inputs, shape);
  bool overlap = false;
  for (const leaf_ref& in : inputs) {
    if (in.device != out.device) {
      throw error("an expression reads an array on device " + std::to_string(in.device) + " and writes one on device " +
                  std::to_string(out.device) + "; copy the operands to one device first");
    }
    if (in.layout->shape != shape) {  // only then can it fail; it allocates, so skip it otherwise
      (void)broadcast_strides(in.layout->shape, in.layout->strides, shape);  // NumPy's message
    }
    overlap = overlap || (in.source == nullptr &&
                          needs_temporary(reinterpret_cast<std::uintptr_t>(out.data), itemsize(out.type), shape,
                                          out.layout->strides, reinterpret_cast<std::uintptr_t>(in.data),
                                          itemsize(in.type), in.layout->shape, in.layout->strides));
  }
  if (shape_size(shape) == 0) {
    return;
  }
  before_leaf_launch(s, out, inputs);
  if (!overlap) {
    launch(state, out, inputs, scalars, s);
    release_sources_after(s, inputs);
    return;
  }
  // Evaluate into a dense temporary, then copy: the temporary is released on `s` after the copy.
  void* p = nullptr;
  const auto owner = allocate_buffer(checked_nbytes(shape, itemsize(out.type)), s, &p);
  const view_layout dense = contiguous_layout(shape);
  launch(state, leaf_ref{p, &dense, out.type, &s, out.device}, inputs, scalars, s);
  release_sources_after(s, inputs);
  copy_cast(out.type, const_cast<void*>(out.data), shape, out.layout->strides, out.type, p, shape, dense.strides, s);
}

void compile_expression(const jit::detail::elementwise_state& state, compute_capability cc) {
  jit::detail::compile_elementwise(state, cc);
}

}  // namespace ndcuda::detail
