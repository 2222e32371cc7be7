// einsum's subscript grammar: "ij,jk->ik", implicit outputs ("ij,jk"), ellipses ("...ij,...jk"),
// repeated labels (diagonals, traces). No device code.
#include <algorithm>
#include <ndcuda/core/error.hpp>
#include <ndcuda/linalg/detail/einsum_plan.hpp>

namespace ndcuda::linalg::detail {

namespace {

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return 26 + (c - 'a');
  }
  throw shape_error(std::string("einsum(): invalid subscript '") + c +
                    "' in einstein sum subscripts string, subscripts must be letters");
}

/// One term ("ij", "...ij", "i...j"): its labels, with -1 standing for the ellipsis.
std::vector<int> parse_term(std::string_view term) {
  std::vector<int> labels;
  bool ellipsis = false;
  for (std::size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (ellipsis || term.substr(i, 3) != "...") {
        throw shape_error(
            "einsum(): invalid subscript '.' in einstein sum subscripts string: an ellipsis is "
            "exactly three dots, at most once per operand");
      }
      ellipsis = true;
      labels.push_back(-1);
      i += 2;
    } else if (term[i] != ' ') {
      labels.push_back(label_of(term[i]));
    }
  }
  return labels;
}

}  // namespace

std::string einsum_label_name(int label) {
  if (label < 26) {
    return std::string(1, static_cast<char>('A' + label));
  }
  if (label < 52) {
    return std::string(1, static_cast<char>('a' + label - 26));
  }
  return "...";
}

einsum_spec parse_einsum(std::string_view subscripts, std::span<const shape_t> shapes) {
  const std::size_t arrow = subscripts.find("->");
  const std::string_view lhs = subscripts.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    terms.push_back(
        parse_term(lhs.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  if (terms.size() != shapes.size()) {
    throw shape_error("einsum(): the subscripts \"" + std::string(subscripts) + "\" name " +
                      std::to_string(terms.size()) + " operands but " + std::to_string(shapes.size()) + " were given");
  }
  einsum_spec spec;
  spec.extents.assign(einsum_ellipsis_label + 64, -1);
  // The ellipsis covers the dimensions no letter names; they right-align across operands.
  std::size_t ellipsis_dims = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const bool has = std::find(terms[i].begin(), terms[i].end(), -1) != terms[i].end();
    const std::size_t letters = terms[i].size() - (has ? 1 : 0);
    if (letters > shapes[i].size() || (!has && letters != shapes[i].size())) {
      throw shape_error("einsum(): operand " + std::to_string(i) + " has " + std::to_string(shapes[i].size()) +
                        " dimensions but its subscripts name " + std::to_string(letters) +
                        (has ? "" : " (and there is no '...' to broadcast the others)"));
    }
    ellipsis_dims = std::max(ellipsis_dims, shapes[i].size() - letters);
  }
  if (ellipsis_dims > 64) {
    throw shape_error("einsum(): too many dimensions under '...'");
  }
  std::vector<int> counts(spec.extents.size(), 0);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    std::vector<int> labels;
    const std::size_t letters =
        terms[i].size() - (std::find(terms[i].begin(), terms[i].end(), -1) != terms[i].end() ? 1 : 0);
    const std::size_t own = shapes[i].size() - letters;
    for (int l : terms[i]) {
      if (l == -1) {
        for (std::size_t d = 0; d < own; ++d) {
          labels.push_back(einsum_ellipsis_label + static_cast<int>(ellipsis_dims - own + d));
        }
      } else {
        labels.push_back(l);
      }
    }
    for (std::size_t d = 0; d < labels.size(); ++d) {
      const int l = labels[d];
      const index_t extent = shapes[i][d];
      index_t& known = spec.extents[static_cast<std::size_t>(l)];
      ++counts[static_cast<std::size_t>(l)];
      if (known == -1 || (l >= einsum_ellipsis_label && known == 1)) {
        known = extent;
      } else if (extent != known && !(l >= einsum_ellipsis_label && extent == 1)) {
        throw shape_error("einsum(): operands could not be broadcast together: subscript '" + einsum_label_name(l) +
                          "' has extent " + std::to_string(known) + " and " + std::to_string(extent) + " (operand " +
                          std::to_string(i) + ", axis " + std::to_string(d) + ")");
      }
    }
    spec.inputs.push_back(std::move(labels));
  }
  if (arrow == std::string_view::npos) {
    // NumPy's implicit output: the broadcast dimensions, then every letter used once, sorted.
    for (std::size_t d = 0; d < ellipsis_dims; ++d) {
      spec.output.push_back(einsum_ellipsis_label + static_cast<int>(d));
    }
    for (int l = 0; l < einsum_ellipsis_label; ++l) {
      if (counts[static_cast<std::size_t>(l)] == 1) {
        spec.output.push_back(l);
      }
    }
  } else {
    for (int l : parse_term(subscripts.substr(arrow + 2))) {
      if (l == -1) {
        for (std::size_t d = 0; d < ellipsis_dims; ++d) {
          spec.output.push_back(einsum_ellipsis_label + static_cast<int>(d));
        }
        continue;
      }
      if (counts[static_cast<std::size_t>(l)] == 0) {
        throw shape_error("einsum(): output subscript '" + einsum_label_name(l) + "' did not appear in an input");
      }
      if (std::find(spec.output.begin(), spec.output.end(), l) != spec.output.end()) {
        throw shape_error("einsum(): output subscript '" + einsum_label_name(l) +
                          "' appears more than once in the output");
      }
      spec.output.push_back(l);
    }
  }
  return spec;
}

}  // namespace ndcuda::linalg::detail
