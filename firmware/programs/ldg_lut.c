/* ldg_lut: table-driven CRC-32 (IEEE 802.3, reflected polynomial
 * 0xEDB88320) of 2048 16-byte messages, one per thread. The 256-entry
 * (1 KiB) table is read-only for the kernel and every thread looks it up
 * once per message byte with __ldgu, so after the first lookups the table
 * lives in the L1/texture cache. The host builds the table, checks its
 * bit-at-a-time CRC on the standard check string "123456789" (0xCBF43926),
 * and compares every thread's CRC with the bit-at-a-time result, which does
 * not use the table at all. */
#include <tessera.h>

#define MESSAGES 2048
#define MESSAGE_WORDS 4 /* 16 bytes */
#define BLOCK 128
#define CRC32_POLY 0xEDB88320u

struct crc_args {
  const unsigned* table;    /* [256] */
  const unsigned* messages; /* [MESSAGES][MESSAGE_WORDS], bytes little-endian */
  unsigned n;
  unsigned* crc; /* [MESSAGES] */
};

static unsigned table[256];
static unsigned messages[MESSAGES][MESSAGE_WORDS];
static unsigned crc[MESSAGES];

TESSERA_KERNEL void crc32_lut(void* argp) {
  const struct crc_args* args = argp;
  unsigned m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= args->n) return;
  unsigned r = 0xffffffffu;
  for (unsigned w = 0; w < MESSAGE_WORDS; w++) {
    unsigned word = args->messages[m * MESSAGE_WORDS + w];
    for (unsigned byte = 0; byte < 4; byte++) {
      r = __ldgu(&args->table[(r ^ word) & 0xffu]) ^ (r >> 8);
      word >>= 8;
    }
  }
  args->crc[m] = ~r;
}

/* Bit-at-a-time CRC-32, the definition the table is derived from. */
static unsigned crc32_bitwise(const unsigned char* bytes, unsigned len) {
  unsigned r = 0xffffffffu;
  for (unsigned i = 0; i < len; i++) {
    r ^= bytes[i];
    for (unsigned bit = 0; bit < 8; bit++) r = (r >> 1) ^ (CRC32_POLY & (0u - (r & 1u)));
  }
  return ~r;
}

int main(void) {
  static const char check[] = "123456789";
  if (crc32_bitwise((const unsigned char*)check, 9) != 0xCBF43926u) {
    printf("FAIL ldg_lut: host CRC-32 of \"123456789\" is %08x, want cbf43926\n",
           crc32_bitwise((const unsigned char*)check, 9));
    return 1;
  }
  for (unsigned i = 0; i < 256; i++) {
    unsigned r = i;
    for (unsigned bit = 0; bit < 8; bit++) r = (r >> 1) ^ (CRC32_POLY & (0u - (r & 1u)));
    table[i] = r;
  }
  unsigned state = 31337u;
  for (unsigned m = 0; m < MESSAGES; m++) {
    for (unsigned w = 0; w < MESSAGE_WORDS; w++) {
      state = state * 1664525u + 1013904223u;
      messages[m][w] = state;
    }
    crc[m] = 0;
  }

  struct crc_args args = {table, &messages[0][0], MESSAGES, crc};
  tessera_roi_begin();
  tessera_launch(crc32_lut, (MESSAGES + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  /* RISC-V is little-endian: the message's bytes are its words' bytes in
   * memory order, as the kernel consumes them. */
  unsigned errors = 0;
  for (unsigned m = 0; m < MESSAGES; m++) {
    unsigned want = crc32_bitwise((const unsigned char*)messages[m], MESSAGE_WORDS * 4);
    if (crc[m] != want) {
      if (errors < 8) printf("FAIL ldg_lut: message %u CRC %08x, want %08x\n", m, crc[m], want);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL ldg_lut: %u of %u wrong\n", errors, MESSAGES);
    return 1;
  }
  printf("PASS ldg_lut (%u CRC-32s of %u bytes, %u table lookups)\n", MESSAGES, MESSAGE_WORDS * 4,
         MESSAGES * MESSAGE_WORDS * 4);
  return 0;
}
