// Internal: tier 0 of reductions (docs/design.md, "Tiered first calls"). A new reduction whose
// reducer has ahead-of-time folds (kernels/tier0_reducers.cuh) runs at once: its map on the
// tier-0 interpreter into a dense buffer (or no map, when it only reads its one input), then the
// fold and, when the plan splits, the finish, over the plan and grid its own kernels will use, so
// both tiers give the same bits. Its two passes compile in the background meanwhile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jit/tier0_program.hpp"

namespace ndcuda::jit::detail {

struct reduction_signature;
struct reduction_plan;
struct reduction_launch;

/// How tier 0 runs one reduction, decided once per reduction_state.
struct tier0_reduction {
  int reducer = -1;  ///< its position in NDCUDA_TIER0_REDUCERS
  /// The map as an interpreter program, writing the values the reducer folds.
  tier0_program map;
  /// The map only reads input 0, of the values' type: the fold can read that input itself.
  bool reads_input = false;
  void* nvtx = nullptr;  ///< "<kernel name> (tier 0)"
};

/// The reducers tier 0 folds, and the position of one by its spelling (-1: none).
[[nodiscard]] int tier0_reducer_count() noexcept;
[[nodiscard]] int tier0_reducer_index(std::string_view spelling) noexcept;

/// Tier 0 for `signature`, or nullopt (with the reason in `why`, when given) when its reducer has
/// no folds or the interpreter cannot run its map. Tiers off (tiered_calls_enabled()): nullopt.
[[nodiscard]] std::optional<tier0_reduction> make_tier0_reduction(const reduction_signature& signature,
                                                                  std::string* why = nullptr);

/// The largest buffer of mapped values tier 0 allocates; a bigger reduction waits for its kernels.
inline constexpr index_t tier0_map_buffer_limit = index_t{256} << 20;

/// Whether tier 0 can run `plan` (as many dimensions as the fold and the interpreter take, a
/// buffer within the limit), and the bytes of its map buffer (0 when the fold reads the input).
[[nodiscard]] bool tier0_fits(const tier0_reduction& tier0, const reduction_plan& plan, std::size_t value_bytes,
                              index_t* buffer_bytes);

/// Whether the library carries fold images for `device`'s architecture (the interpreter's are built
/// for the same ones): without, a reduction waits for its passes, as before tiers.
[[nodiscard]] bool tier0_reductions_run_on(int device);

/// Runs the planned launch on tier 0: the map into `map_buffer` (unless the fold reads the input),
/// the fold, and the finish over `partials` when the plan splits. False, launching nothing, when
/// no image fits the device.
bool launch_tier0_reduction(const tier0_reduction& tier0, const reduction_launch& launch, const stream& s, void* out,
                            void* partials, void* map_buffer, const void* const* inputs, const void* const* scalars,
                            double param);

/// Folds run by tier 0 in this process (tests ask which tier ran).
[[nodiscard]] std::uint64_t tier0_fold_launch_count() noexcept;

}  // namespace ndcuda::jit::detail
