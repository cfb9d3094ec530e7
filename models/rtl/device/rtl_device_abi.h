/* The interface between Tessera and a verilated rtl_device: a shared
 * library Tessera builds from a block's SystemVerilog on first use
 * (docs/rtl-devices.md) and loads with dlopen. Plain C, so the library and
 * the simulator share no C++ ABI: the library holds its own copy of the
 * Verilator runtime, and exports only tessera_rtl_device_api_v1.
 *
 * The pins are those of the AXI specification (AMBA AXI and ACE Protocol
 * Specification, ARM IHI 0022, section A2), named as the block names them
 * without their prefix: s_axil_* (the AXI4-Lite register slave) and m_axi_*
 * (the AXI4 memory master). A field exists here whether or not the block has
 * the pin; the glue copies only the pins the block has. Data wider than 32
 * bits is little-endian 32-bit words (word 0 holds bits 31:0). */
#ifndef TESSERA_RTL_DEVICE_ABI_H
#define TESSERA_RTL_DEVICE_ABI_H

#include <stdint.h>

#define TESSERA_RTL_DEVICE_ABI_VERSION 2
#define TESSERA_RTL_DEVICE_MAX_DATA_WORDS 16 /* 512-bit master data */

#ifdef __cplusplus
extern "C" {
#endif

/* What Tessera drives in a cycle. */
struct tessera_rtl_device_inputs {
  /* register slave: Tessera is its master */
  uint8_t s_awvalid, s_wvalid, s_bready, s_arvalid, s_rready, s_wstrb;
  uint32_t s_awaddr, s_wdata, s_araddr;
  /* memory master: Tessera is its slave */
  uint8_t m_awready, m_wready, m_bvalid, m_bresp, m_arready, m_rvalid, m_rresp, m_rlast;
  uint32_t m_bid, m_rid;
  uint32_t m_rdata[TESSERA_RTL_DEVICE_MAX_DATA_WORDS];
};

/* What the block drives, read before the clock's rising edge. */
struct tessera_rtl_device_outputs {
  uint8_t s_awready, s_wready, s_bvalid, s_bresp, s_arready, s_rvalid, s_rresp;
  uint32_t s_rdata;
  uint8_t m_awvalid, m_awlen, m_awsize, m_awburst, m_wvalid, m_wlast, m_bready;
  uint8_t m_arvalid, m_arlen, m_arsize, m_arburst, m_rready;
  uint64_t m_awaddr, m_araddr, m_wstrb;
  uint32_t m_awid, m_arid;
  uint32_t m_wdata[TESSERA_RTL_DEVICE_MAX_DATA_WORDS];
  uint32_t irq;
  uint8_t busy;
};

/* The block's shape: which interfaces it has and their widths. */
struct tessera_rtl_device_shape {
  uint32_t s_addr_bits; /* 0: no register slave */
  uint32_t m_data_bits; /* 0: no memory master */
  uint32_t m_addr_bits, m_id_bits;
  uint32_t irq_bits; /* 0: no interrupt output */
  uint32_t has_busy;
};

struct tessera_rtl_device_api {
  uint32_t abi_version; /* TESSERA_RTL_DEVICE_ABI_VERSION */
  const char* top;      /* the SystemVerilog top module */
  struct tessera_rtl_device_shape shape;
  /* A new instance, reset held (aresetn low) for two cycles. */
  void* (*create)(const char* name);
  void (*destroy)(void* device);
  /* Applies the inputs with aclk low, evaluates, and reads the outputs:
   * what both sides see before the next rising edge. */
  void (*eval)(void* device, const struct tessera_rtl_device_inputs* in, struct tessera_rtl_device_outputs* out);
  /* The rising edge of aclk. */
  void (*edge)(void* device);
  /* FST waveform of every signal of the block: open (0 on success), dump
   * the current values at a time in ps, close. */
  int (*trace_open)(void* device, const char* path);
  void (*trace_dump)(void* device, uint64_t time_ps);
  void (*trace_close)(void* device);
  /* Verilator's coverage of the instance (the block's `cover property`
   * statements, --coverage-user) written to a file in its coverage.dat
   * format: 0 on success. */
  int (*coverage_write)(void* device, const char* path);
};

typedef const struct tessera_rtl_device_api* (*tessera_rtl_device_api_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
