// The tier-0 encoder: reads the body that expr/codegen.cpp generated (its grammar is that file's:
// `const T ndcuda_vK = e;` lines, then `out = e`, where e is in<k>, s<k>, ndcuda_v<k>,
// ndcuda::nd_<f>(e, ...), ndcuda::cast<T>(e), ((T)(e op e)), ((T)(!e)) or (e ? e : e)) into the
// interpreter's steps. Anything else is refused, never guessed: the expression then waits for
// its own kernel, as it did before tiers.
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <tuple>

#include "jit/elementwise_source.hpp"
#include "jit/tier0_program.hpp"

namespace ndcuda::jit::detail {
namespace {

struct operation_info {
  std::string_view name;
  unsigned char opcode;
  int arity;
  int types;
  bool predicate;
};

#define NDCUDA_TIER0_CALL_INFO(tag, arity, types, predicate) \
  {#tag, ndcuda_tier0_##tag, (arity), (types), (predicate) != 0},
constexpr operation_info calls[] = {NDCUDA_TIER0_CALLS(NDCUDA_TIER0_CALL_INFO)};
#undef NDCUDA_TIER0_CALL_INFO
#define NDCUDA_TIER0_INFIX_INFO(tag, op, types, predicate) {#op, ndcuda_tier0_##tag, 2, (types), (predicate) != 0},
constexpr operation_info operators[] = {NDCUDA_TIER0_INFIX(NDCUDA_TIER0_INFIX_INFO)};
#undef NDCUDA_TIER0_INFIX_INFO

int type_mask(int code) {
  return code == NDCUDA_TIER0_BOOL                                  ? NDCUDA_TIER0_B
         : code == NDCUDA_TIER0_INT32 || code == NDCUDA_TIER0_INT64 ? NDCUDA_TIER0_I
                                                                    : NDCUDA_TIER0_F;
}

constexpr std::array<dtype, NDCUDA_TIER0_TYPES> value_types = {dtype::bool_, dtype::int32, dtype::int64, dtype::float32,
                                                               dtype::float64};

// Thrown inside the parser only; encode_tier0 turns it into nullopt.
struct refused {
  std::string why;
};

class parser {
 public:
  parser(std::string_view text, const elementwise_signature& signature) : text_(text), signature_(signature) {}

  tier0_program parse() {
    while (accept("const ")) {
      const int type = type_name();
      expect(" ndcuda_v");
      const int local = number();
      expect(" = ");
      const int value = expression();
      if (type_of(value) != type) {
        throw refused{"local ndcuda_v" + std::to_string(local) + " converts implicitly"};
      }
      locals_[local] = value;
      expect(";\n");
    }
    expect("out = ");
    const int root = expression();
    accept(";");
    if (at_ != text_.size()) {
      throw refused{"text after the store: '" + std::string(text_.substr(at_, 24)) + "'"};
    }
    const int out = tier0_type(signature_.out);
    if (out < 0 || type_of(root) != out) {
      throw refused{"the stored value is not of the output's type"};
    }
    program_.out_type = out;
    for (dtype t : signature_.scalars) {
      program_.scalar_bytes.push_back(itemsize(t));
    }
    allocate_registers();
    return std::move(program_);
  }

 private:
  bool accept(std::string_view word) {
    if (text_.substr(at_, word.size()) == word) {
      at_ += word.size();
      return true;
    }
    return false;
  }
  void expect(std::string_view word) {
    if (!accept(word)) {
      throw refused{"expected '" + std::string(word) + "' at '" + std::string(text_.substr(at_, 24)) + "'"};
    }
  }
  int number() {
    const std::size_t start = at_;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
      ++at_;
    }
    if (start == at_ || at_ - start > 6) {
      throw refused{"expected a number at '" + std::string(text_.substr(start, 24)) + "'"};
    }
    return std::stoi(std::string(text_.substr(start, at_ - start)));
  }
  // A CUDA type name as cuda_type_name spells it, as its value type code.
  int type_name() {
    for (std::size_t code = 0; code < value_types.size(); ++code) {
      if (accept(cuda_type_name(value_types[code]))) {
        return static_cast<int>(code);
      }
    }
    throw refused{"a type tier 0 lacks at '" + std::string(text_.substr(at_, 24)) + "'"};
  }
  int type_of(int step) const { return program_.result_types[static_cast<std::size_t>(step)]; }

  // The step computing (op, type, a, b, c, aux), appended unless the same one exists.
  int step(unsigned char op, int type, int result_type, std::array<int, 3> args, int aux) {
    const auto key = std::make_tuple(op, type, args[0], args[1], args[2], aux);
    if (auto found = seen_.find(key); found != seen_.end()) {
      return found->second;
    }
    if (program_.steps.size() >= NDCUDA_TIER0_MAX_STEPS) {
      throw refused{"more than " + std::to_string(NDCUDA_TIER0_MAX_STEPS) + " steps"};
    }
    ndcuda_tier0_step s{};
    s.op = op;
    s.type = static_cast<unsigned char>(type);
    s.a = static_cast<unsigned char>(std::max(args[0], 0));
    s.b = static_cast<unsigned char>(std::max(args[1], 0));
    s.c = static_cast<unsigned char>(std::max(args[2], 0));
    s.aux = static_cast<unsigned char>(aux);
    program_.steps.push_back(s);
    operands_.push_back(args);
    program_.result_types.push_back(result_type);
    const int index = static_cast<int>(program_.steps.size()) - 1;
    seen_.emplace(key, index);
    return index;
  }

  int leaf(std::string_view prefix, const std::vector<dtype>& types, unsigned char op) {
    const int k = number();
    if (k >= static_cast<int>(types.size())) {
      throw refused{std::string(prefix) + std::to_string(k) + " is not a parameter"};
    }
    if (op == ndcuda_tier0_load_input && signature_.is_source(static_cast<std::size_t>(k))) {
      throw refused{"input " + std::to_string(k) + " is computed (a random draw)"};
    }
    const int type = tier0_type(types[static_cast<std::size_t>(k)]);
    if (type < 0) {
      throw refused{std::string(prefix) + std::to_string(k) + " has dtype " +
                    std::string(name(types[static_cast<std::size_t>(k)]))};
    }
    return step(op, type, type, {-1, -1, -1}, k);
  }

  static void check_operands(const operation_info& info, int type) {
    if ((info.types & type_mask(type)) == 0) {
      throw refused{"'" + std::string(info.name) + "' on " + std::string(cuda_type_name(value_types[type])) +
                    " is not in the interpreter"};
    }
  }

  int expression() {
    if (accept("in")) {
      return leaf("in", signature_.in, ndcuda_tier0_load_input);
    }
    if (accept("s")) {
      return leaf("s", signature_.scalars, ndcuda_tier0_load_scalar);
    }
    if (accept("ndcuda_v")) {
      const int k = number();
      const auto found = locals_.find(k);
      if (found == locals_.end()) {
        throw refused{"ndcuda_v" + std::to_string(k) + " is used before it is defined"};
      }
      return found->second;
    }
    if (accept("ndcuda::cast<")) {
      const int to = type_name();
      expect(">(");
      const int value = expression();
      expect(")");
      return step(ndcuda_tier0_cast, type_of(value), to, {value, -1, -1}, to);
    }
    if (accept("ndcuda::nd_")) {
      const std::size_t start = at_;
      while (at_ < text_.size() && text_[at_] != '(') {
        ++at_;
      }
      const std::string_view name = text_.substr(start, at_ - start);
      const auto* info =
          std::find_if(std::begin(calls), std::end(calls), [&](const operation_info& c) { return c.name == name; });
      if (info == std::end(calls)) {
        throw refused{"nd_" + std::string(name) + " is not in the interpreter"};
      }
      expect("(");
      std::array<int, 3> args{-1, -1, -1};
      for (int i = 0; i < info->arity; ++i) {
        if (i > 0) {
          expect(", ");
        }
        args[static_cast<std::size_t>(i)] = expression();
      }
      expect(")");
      const int type = type_of(args[0]);
      if (info->arity == 2 && type_of(args[1]) != type) {
        throw refused{"nd_" + std::string(name) + " on operands of two types"};
      }
      check_operands(*info, type);
      return step(info->opcode, type, info->predicate ? NDCUDA_TIER0_BOOL : type, args, 0);
    }
    expect("(");
    if (accept("(")) {
      // ((T)(a op b)) or ((T)(!a)), unless this '(' opens the condition of a where.
      const std::size_t mark = at_;
      if (accept("(")) {
        at_ = mark - 1;  // "(((" : a where whose condition is itself parenthesised
      } else {
        const int cast_type = type_name();
        expect(")(");
        if (accept("!")) {
          const int value = expression();
          expect("))");
          if (type_of(value) != NDCUDA_TIER0_BOOL || cast_type != NDCUDA_TIER0_BOOL) {
            throw refused{"'!' on a value that is not bool"};
          }
          return step(ndcuda_tier0_logical_not, NDCUDA_TIER0_BOOL, NDCUDA_TIER0_BOOL, {value, -1, -1}, 0);
        }
        const int a = expression();
        expect(" ");
        const std::size_t op_start = at_;
        while (at_ < text_.size() && text_[at_] != ' ') {
          ++at_;
        }
        const std::string_view op = text_.substr(op_start, at_ - op_start);
        expect(" ");
        const int b = expression();
        expect("))");
        const auto* info = std::find_if(std::begin(operators), std::end(operators),
                                        [&](const operation_info& o) { return o.name == op; });
        if (info == std::end(operators)) {
          throw refused{"operator '" + std::string(op) + "' is not in the interpreter"};
        }
        const int type = type_of(a);
        if (type_of(b) != type) {
          throw refused{"operator '" + std::string(op) + "' on operands of two types"};
        }
        check_operands(*info, type);
        const int result = info->predicate ? NDCUDA_TIER0_BOOL : type;
        if (cast_type != result) {
          throw refused{"operator '" + std::string(op) + "' converted to another type"};
        }
        return step(info->opcode, type, result, {a, b, -1}, 0);
      }
    }
    // (c ? a : b)
    const int condition = expression();
    expect(" ? ");
    const int a = expression();
    expect(" : ");
    const int b = expression();
    expect(")");
    if (type_of(condition) != NDCUDA_TIER0_BOOL || type_of(a) != type_of(b)) {
      throw refused{"a where over a condition that is not bool, or branches of two types"};
    }
    return step(ndcuda_tier0_where, type_of(a), type_of(a), {condition, a, b}, 0);
  }

  // Steps write registers, not a slot each: a value's register is free again after its last
  // use (a step may write the register of an operand it reads for the last time: the interpreter
  // reads each lane's operands before it writes that lane). The stored value lives to the end.
  void allocate_registers() {
    const std::size_t count = program_.steps.size();
    std::vector<std::size_t> last_use(count, 0);
    for (std::size_t k = 0; k < count; ++k) {
      for (int arg : operands_[k]) {
        if (arg >= 0) {
          last_use[static_cast<std::size_t>(arg)] = k;
        }
      }
    }
    last_use[count - 1] = count;
    std::array<bool, NDCUDA_TIER0_REGISTERS> busy{};
    std::vector<int> reg(count, -1);
    for (std::size_t k = 0; k < count; ++k) {
      for (int arg : operands_[k]) {
        if (arg >= 0 && last_use[static_cast<std::size_t>(arg)] == k) {
          busy[static_cast<std::size_t>(reg[static_cast<std::size_t>(arg)])] = false;
        }
      }
      auto free = std::find(busy.begin(), busy.end(), false);
      if (free == busy.end()) {
        throw refused{"more than " + std::to_string(NDCUDA_TIER0_REGISTERS) + " values live at once"};
      }
      *free = true;
      reg[k] = static_cast<int>(free - busy.begin());
      ndcuda_tier0_step& s = program_.steps[k];
      s.dst = static_cast<unsigned char>(reg[k]);
      s.a = operands_[k][0] >= 0 ? static_cast<unsigned char>(reg[static_cast<std::size_t>(operands_[k][0])]) : 0;
      s.b = operands_[k][1] >= 0 ? static_cast<unsigned char>(reg[static_cast<std::size_t>(operands_[k][1])]) : 0;
      s.c = operands_[k][2] >= 0 ? static_cast<unsigned char>(reg[static_cast<std::size_t>(operands_[k][2])]) : 0;
    }
  }

  std::string_view text_;
  const elementwise_signature& signature_;
  std::vector<std::array<int, 3>> operands_;  // per step, the steps it reads (-1: none)
  std::size_t at_ = 0;
  tier0_program program_;
  std::map<int, int> locals_;
  std::map<std::tuple<unsigned char, int, int, int, int, int>, int> seen_;
};

}  // namespace

int tier0_type(dtype t) noexcept {
  const auto* found = std::find(value_types.begin(), value_types.end(), t);
  return found == value_types.end() ? -1 : static_cast<int>(found - value_types.begin());
}

std::optional<tier0_program> encode_tier0(std::string_view body, const elementwise_signature& signature,
                                          std::string* why) {
  try {
    if (signature.in.size() + 1 > NDCUDA_TIER0_MAX_OPERANDS || signature.scalars.size() > NDCUDA_TIER0_MAX_SCALARS) {
      throw refused{"more operands than the interpreter takes"};
    }
    return parser(body, signature).parse();
  } catch (const refused& r) {
    if (why != nullptr) {
      *why = r.why;
    }
    return std::nullopt;
  }
}

}  // namespace ndcuda::jit::detail
