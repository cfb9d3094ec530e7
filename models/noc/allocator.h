// Allocators match requesters (inputs) with resources (outputs) once per
// cycle: at most one output per input and one input per output. The router
// uses one for virtual-channel allocation (input VCs x output VCs) and one
// for switch allocation (input ports x output ports). Policies follow Dally &
// Towles, "Principles and Practices of Interconnection Networks", ch. 19.
#pragma once

#include <memory>
#include <vector>

#include "noc/noc_params.h"

namespace tessera::noc {

class Allocator {
 public:
  Allocator(int inputs, int outputs);
  virtual ~Allocator() = default;
  int inputs() const { return inputs_; }
  int outputs() const { return outputs_; }

  void clear();
  void request(int input, int output);
  // Computes the matching of the current requests.
  virtual void allocate() = 0;
  int grant_of_input(int input) const { return grant_in_[input]; }
  int grant_of_output(int output) const { return grant_out_[output]; }
  // Inputs that made a request this cycle, in first-request order.
  const std::vector<int>& active_inputs() const { return active_; }

 protected:
  // The candidate that comes first in round-robin order from `pointer`.
  static int round_robin(const std::vector<int>& candidates, int pointer, int n);
  void reset_grants();

  int inputs_, outputs_;
  std::vector<std::vector<int>> requests_;  // outputs requested by each input
  std::vector<int> active_;
  std::vector<int> grant_in_, grant_out_;
};

// Separable input-first: every input's round-robin arbiter picks one of its
// requests, then every output's round-robin arbiter picks one of the inputs
// that picked it. Pointers advance past a winner only when it is granted.
class SeparableInputFirstAllocator : public Allocator {
 public:
  SeparableInputFirstAllocator(int inputs, int outputs);
  void allocate() override;

 private:
  std::vector<int> in_pointer_, out_pointer_;
  std::vector<std::vector<int>> picked_by_;  // per output: inputs that picked it
  std::vector<int> touched_outputs_;
};

// iSLIP (McKeown, IEEE/ACM ToN 1999): request, grant (each output
// round-robin over requesting inputs), accept (each input round-robin over
// granting outputs), repeated for unmatched ports; pointers move only on
// first-iteration accepts, which desynchronises them under load.
class IslipAllocator : public Allocator {
 public:
  IslipAllocator(int inputs, int outputs, int iterations);
  void allocate() override;

 private:
  int iterations_;
  std::vector<int> grant_pointer_, accept_pointer_;
  std::vector<std::vector<int>> requesters_;  // per output
  std::vector<std::vector<int>> granted_by_;  // per input
  std::vector<int> touched_outputs_;
};

std::unique_ptr<Allocator> make_allocator(AllocatorKind kind, int inputs, int outputs, int islip_iterations);

}  // namespace tessera::noc
