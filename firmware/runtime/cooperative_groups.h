/*
 * cooperative_groups.h - CUDA's cooperative groups on Tessera (C++17):
 * the thread block, its tiles of 1..32 threads (tiled_partition<N>) and the
 * coalesced group of a warp's active threads, on Tessera's barrier and
 * warp instructions (docs/cuda.md, "Cooperative groups").
 *
 * Grid-wide groups (this_grid(), cooperative launches) are not supported:
 * using one is a compile error.
 */
#ifndef TESSERA_COOPERATIVE_GROUPS_H
#define TESSERA_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups {

class thread_block {
 public:
  TESSERA_CXX_INLINE void sync() const { __syncthreads(); }
  TESSERA_CXX_INLINE unsigned thread_rank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  TESSERA_CXX_INLINE unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  TESSERA_CXX_INLINE unsigned num_threads() const { return size(); }
  TESSERA_CXX_INLINE dim3 group_index() const { return blockIdx; }
  TESSERA_CXX_INLINE dim3 thread_index() const { return threadIdx; }
  TESSERA_CXX_INLINE dim3 group_dim() const { return blockDim; }
  TESSERA_CXX_INLINE dim3 dim_threads() const { return blockDim; }
};

TESSERA_CXX_INLINE thread_block this_thread_block() { return thread_block(); }
TESSERA_CXX_INLINE void sync(const thread_block& g) { g.sync(); }

/* _Np consecutive threads of a warp (thread ranks of the block, as CUDA
 * partitions them); _Np a power of two up to 32. */
template <unsigned _Np>
class thread_block_tile {
  static_assert(_Np >= 1 && _Np <= 32 && (_Np & (_Np - 1)) == 0,
                "tiled_partition<N>: N must be a power of two from 1 to 32");

 public:
  static constexpr unsigned num_threads_ = _Np;
  /* The lanes of the caller's tile within its warp. */
  TESSERA_CXX_INLINE unsigned mask() const {
    const unsigned lanes = _Np == 32 ? 0xFFFFFFFFu : ((1u << _Np) - 1u);
    return lanes << (tessera_lane_id() & ~(_Np - 1u));
  }
  TESSERA_CXX_INLINE void sync() const { __syncwarp(mask()); }
  TESSERA_CXX_INLINE unsigned thread_rank() const { return this_thread_block().thread_rank() & (_Np - 1u); }
  TESSERA_CXX_INLINE unsigned meta_group_rank() const { return this_thread_block().thread_rank() / _Np; }
  TESSERA_CXX_INLINE unsigned meta_group_size() const { return (this_thread_block().size() + _Np - 1u) / _Np; }
  static constexpr unsigned size() { return _Np; }
  static constexpr unsigned num_threads() { return _Np; }
  template <class _Tp>
  TESSERA_CXX_INLINE _Tp shfl(_Tp v, int src) const {
    return __shfl_sync(mask(), v, src, (int)_Np);
  }
  template <class _Tp>
  TESSERA_CXX_INLINE _Tp shfl_down(_Tp v, unsigned delta) const {
    return __shfl_down_sync(mask(), v, (int)delta, (int)_Np);
  }
  template <class _Tp>
  TESSERA_CXX_INLINE _Tp shfl_up(_Tp v, unsigned delta) const {
    return __shfl_up_sync(mask(), v, (int)delta, (int)_Np);
  }
  template <class _Tp>
  TESSERA_CXX_INLINE _Tp shfl_xor(_Tp v, unsigned lane_mask) const {
    return __shfl_xor_sync(mask(), v, (int)lane_mask, (int)_Np);
  }
  TESSERA_CXX_INLINE int any(int pred) const { return __any_sync(mask(), pred); }
  TESSERA_CXX_INLINE int all(int pred) const { return __all_sync(mask(), pred); }
  /* Bit i for the tile's thread i. */
  TESSERA_CXX_INLINE unsigned ballot(int pred) const {
    return __ballot_sync(mask(), pred) >> (tessera_lane_id() & ~(_Np - 1u));
  }
};

template <unsigned _Np>
TESSERA_CXX_INLINE thread_block_tile<_Np> tiled_partition(const thread_block&) {
  return thread_block_tile<_Np>();
}
template <unsigned _Np>
TESSERA_CXX_INLINE void sync(const thread_block_tile<_Np>& g) {
  g.sync();
}

/* The threads of the caller's warp that run this code together. */
class coalesced_group {
 public:
  TESSERA_CXX_INLINE coalesced_group() : mask_(__activemask()) {}
  TESSERA_CXX_INLINE unsigned size() const { return (unsigned)__popc(mask_); }
  TESSERA_CXX_INLINE unsigned num_threads() const { return size(); }
  /* Active lanes below the caller. */
  TESSERA_CXX_INLINE unsigned thread_rank() const { return (unsigned)__popc(mask_ & ((1u << tessera_lane_id()) - 1u)); }
  TESSERA_CXX_INLINE void sync() const { __syncwarp(mask_); }
  /* Rank src's value (src counts the active lanes). */
  template <class _Tp>
  TESSERA_CXX_INLINE _Tp shfl(_Tp v, unsigned src) const {
    return __shfl_sync(mask_, v, (int)lane_of_rank(src));
  }
  TESSERA_CXX_INLINE int any(int pred) const { return __any_sync(mask_, pred); }
  TESSERA_CXX_INLINE int all(int pred) const { return __all_sync(mask_, pred); }
  TESSERA_CXX_INLINE unsigned ballot(int pred) const {
    /* The active lanes' votes, packed in rank order. */
    const unsigned votes = __ballot_sync(mask_, pred);
    unsigned r = 0, bit = 0;
    for (unsigned m = mask_; m != 0; m &= m - 1u, ++bit)
      if (votes & (m & (0u - m))) r |= 1u << bit;
    return r;
  }
  TESSERA_CXX_INLINE unsigned get_mask() const { return mask_; }

 private:
  TESSERA_CXX_INLINE unsigned lane_of_rank(unsigned rank) const {
    unsigned m = mask_;
    for (unsigned i = 0; i < rank && m != 0; ++i) m &= m - 1u;
    return m != 0 ? (unsigned)__builtin_ctz(m) : 0u;
  }
  unsigned mask_;
};

TESSERA_CXX_INLINE coalesced_group coalesced_threads() { return coalesced_group(); }
TESSERA_CXX_INLINE void sync(const coalesced_group& g) { g.sync(); }

/* Grid-wide synchronisation needs cooperative launches, which Tessera does
 * not model. */
struct grid_group {};
grid_group this_grid() __attribute__((
    error("cooperative_groups::this_grid(): grid-wide groups (cooperative launches) are not supported on Tessera")));

}  // namespace cooperative_groups

#endif /* TESSERA_COOPERATIVE_GROUPS_H */
