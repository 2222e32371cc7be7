// Labels of expression nodes as C++ spells them: operators with C++'s precedence and only the
// parentheses it needs, every other ufunc as a call. Built once per expression type, never per launch.
#include "expr/expression_label.hpp"

#include <array>
#include <string_view>

namespace ndcuda::detail {
namespace {

struct operator_row {
  std::string_view name;  // operation::name
  std::string_view symbol;
  int precedence;  // higher binds tighter, as in C++
  bool prefix;
};

// The ufuncs that ops/operators.hpp overloads a C++ operator for.
constexpr std::array<operator_row, 18> operator_rows{{
    {"multiply", "*", 80, false},
    {"true_divide", "/", 80, false},
    {"remainder", "%", 80, false},
    {"add", "+", 70, false},
    {"subtract", "-", 70, false},
    {"left_shift", "<<", 65, false},
    {"right_shift", ">>", 65, false},
    {"less", "<", 60, false},
    {"less_equal", "<=", 60, false},
    {"greater", ">", 60, false},
    {"greater_equal", ">=", 60, false},
    {"equal", "==", 55, false},
    {"not_equal", "!=", 55, false},
    {"bitwise_and", "&", 50, false},
    {"bitwise_xor", "^", 45, false},
    {"bitwise_or", "|", 40, false},
    {"negative", "-", 90, true},
    {"invert", "~", 90, true},
}};

constexpr int prefix_precedence = 90;

const operator_row* find_operator(std::string_view name, std::size_t arity) {
  for (const operator_row& row : operator_rows) {
    if (row.name == name && (row.prefix ? arity == 1 : arity == 2)) {
      return &row;
    }
  }
  return nullptr;
}

// `c`'s label, in parentheses when it binds looser than `at_least`.
std::string operand(const node_code& c, int at_least) {
  if (c.precedence < at_least) {
    return "(" + c.label + ")";
  }
  return c.label;
}

// A random draw's own leaf has no label (the user never named it): normal(s0, s1), not normal(a, s0, s1).
std::string joined(std::span<const node_code> args) {
  std::string text;
  for (const node_code& arg : args) {
    if (arg.label.empty()) {
      continue;
    }
    text += text.empty() ? "" : ", ";
    text += arg.label;
  }
  return text;
}

}  // namespace

void label_operation(node_code& out, const char* name, form how, dtype result, std::span<const node_code> args) {
  const std::string_view op = name != nullptr ? name : "";
  out.precedence = node_code::label_atom;
  if (how == form::cast && args.size() == 1) {
    out.label = operand(args[0], node_code::label_atom) + ".astype<" + std::string(ndcuda::name(result)) + ">()";
    return;
  }
  if (const operator_row* row = find_operator(op, args.size())) {
    out.precedence = row->prefix ? prefix_precedence : row->precedence;
    if (row->prefix) {
      out.label = std::string(row->symbol) + operand(args[0], prefix_precedence + 1);  // -(-a), not --a
    } else {  // left-associative: a right operand of equal precedence keeps its parentheses
      out.label = operand(args[0], row->precedence) + std::string(row->symbol) + operand(args[1], row->precedence + 1);
    }
    return;
  }
  out.label = std::string(op.empty() ? "f" : op) + "(" + joined(args) + ")";
}

std::string call_label(const char* name, std::span<const node_code> args) {
  return std::string(name != nullptr ? name : "f") + "(" + joined(args) + ")";
}

std::string input_label(int index) {
  if (index >= 0 && index < 26) {
    return std::string(1, static_cast<char>('a' + index));
  }
  return "in" + std::to_string(index);
}

std::string clipped_label(const std::string& label, std::size_t limit) {
  if (label.size() <= limit) {
    return label;
  }
  return label.substr(0, limit - 3) + "...";
}

}  // namespace ndcuda::detail
