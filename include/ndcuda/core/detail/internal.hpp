// NDCUDA_INTERNAL marks what a public header declares for the library's own sources and tests only:
// no header template or inline function calls it. A shared ndcuda built with hidden visibility
// (NDCUDA_HIDDEN_VISIBILITY, which defines NDCUDA_HIDE_INTERNALS for the libraries' own sources)
// then keeps it out of the exported symbols; everywhere else, a program's code included, the mark
// is empty. Builds on nothing.
#pragma once

#if defined(NDCUDA_HIDE_INTERNALS)
#define NDCUDA_INTERNAL [[gnu::visibility("hidden")]]
#else
#define NDCUDA_INTERNAL
#endif
