/* The program behind fuzz_sm: the harness overwrites the FUZZ_WORDS words of
 * fuzz_code and the three variables below with its input, then runs it on
 * the sm1 platform. Control core 0 either calls fuzz_code itself or launches
 * it as a kernel of fuzz_grid x fuzz_block threads (with 1 KiB of shared
 * memory per block) and waits for it. */
#include <tessera.h>

#define FUZZ_WORDS 512

/* Placeholder code: `exit` (custom-0, funct3 1, funct7 1), FUZZ_WORDS times. */
__asm__(
    ".text\n"
    ".p2align 2\n"
    ".globl fuzz_code\n"
    ".type fuzz_code, @function\n"
    "fuzz_code:\n"
    ".rept 512\n"
    ".insn r 0x0B, 1, 1, x0, x0, x0\n"
    ".endr\n"
    ".size fuzz_code, . - fuzz_code\n");
void fuzz_code(void* args);

/* Initialised, so they live in the file (.data) where the harness patches them. */
volatile unsigned fuzz_on_sm = 1;
volatile unsigned fuzz_grid = 1;
volatile unsigned fuzz_block = 32;

int main(void) {
  if (!fuzz_on_sm) {
    fuzz_code(0);
    return 0;
  }
  tessera_launch(fuzz_code, fuzz_grid, fuzz_block, 1024, 0);
  tessera_wait();
  return 0;
}
