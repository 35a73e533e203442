// See KeyKernel.h: `keyBlocks`, the edge blocks of spans with a few of them, one by one (KeyBlock.h), compiled at
// every level (Levels.h), a keyed or kept pixel's alpha taken from the keyer's table.
#include "KeyBlock.h"
#include "KeyKernel.h"
#include "Levels.h"

INLINE void key_blocks(const MWKeyParams *p, const MWKeyRow *row, const int level) {
    (void)level;
    key_blocks_with(p, row, 1);
}

COMPILED_AT_LEVELS(void, key_blocks, (const MWKeyParams *p, const MWKeyRow *row), p, row)
