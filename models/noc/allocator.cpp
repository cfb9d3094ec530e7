#include "noc/allocator.h"

#include <stdexcept>

namespace tessera::noc {

Allocator::Allocator(int inputs, int outputs)
    : inputs_(inputs), outputs_(outputs), requests_(inputs), grant_in_(inputs, -1), grant_out_(outputs, -1) {}

void Allocator::clear() {
  for (int i : active_) requests_[i].clear();
  active_.clear();
}

void Allocator::request(int input, int output) {
  if (input < 0 || input >= inputs_ || output < 0 || output >= outputs_)
    throw std::out_of_range("allocator request outside its inputs or outputs");
  auto& r = requests_[input];
  if (r.empty()) active_.push_back(input);
  for (int o : r)
    if (o == output) return;
  r.push_back(output);
}

int Allocator::round_robin(const std::vector<int>& candidates, int pointer, int n) {
  int best = -1, best_distance = n;
  for (int c : candidates) {
    const int distance = c >= pointer ? c - pointer : c - pointer + n;  // pointer and c are in [0, n)
    if (distance < best_distance) {
      best_distance = distance;
      best = c;
    }
  }
  return best;
}

void Allocator::reset_grants() {
  std::fill(grant_in_.begin(), grant_in_.end(), -1);
  std::fill(grant_out_.begin(), grant_out_.end(), -1);
}

SeparableInputFirstAllocator::SeparableInputFirstAllocator(int inputs, int outputs)
    : Allocator(inputs, outputs), in_pointer_(inputs, 0), out_pointer_(outputs, 0), picked_by_(outputs) {}

void SeparableInputFirstAllocator::allocate() {
  reset_grants();
  for (int o : touched_outputs_) picked_by_[o].clear();
  touched_outputs_.clear();
  for (int i : active_) {
    const int o = round_robin(requests_[i], in_pointer_[i], outputs_);
    if (picked_by_[o].empty()) touched_outputs_.push_back(o);
    picked_by_[o].push_back(i);
  }
  for (int o : touched_outputs_) {
    const int i = round_robin(picked_by_[o], out_pointer_[o], inputs_);
    grant_in_[i] = o;
    grant_out_[o] = i;
    in_pointer_[i] = o + 1 == outputs_ ? 0 : o + 1;
    out_pointer_[o] = i + 1 == inputs_ ? 0 : i + 1;
  }
}

IslipAllocator::IslipAllocator(int inputs, int outputs, int iterations)
    : Allocator(inputs, outputs),
      iterations_(iterations),
      grant_pointer_(outputs, 0),
      accept_pointer_(inputs, 0),
      requesters_(outputs),
      granted_by_(inputs) {}

void IslipAllocator::allocate() {
  reset_grants();
  for (int iteration = 0; iteration < iterations_; ++iteration) {
    for (int o : touched_outputs_) requesters_[o].clear();
    touched_outputs_.clear();
    for (int i : active_) {
      granted_by_[i].clear();
      if (grant_in_[i] >= 0) continue;
      for (int o : requests_[i]) {
        if (grant_out_[o] >= 0) continue;
        if (requesters_[o].empty()) touched_outputs_.push_back(o);
        requesters_[o].push_back(i);
      }
    }
    if (touched_outputs_.empty()) break;
    for (int o : touched_outputs_) {
      const int i = round_robin(requesters_[o], grant_pointer_[o], inputs_);
      granted_by_[i].push_back(o);
    }
    for (int i : active_) {
      if (granted_by_[i].empty()) continue;
      const int o = round_robin(granted_by_[i], accept_pointer_[i], outputs_);
      grant_in_[i] = o;
      grant_out_[o] = i;
      if (iteration == 0) {
        accept_pointer_[i] = o + 1 == outputs_ ? 0 : o + 1;
        grant_pointer_[o] = i + 1 == inputs_ ? 0 : i + 1;
      }
    }
  }
  for (int o : touched_outputs_) requesters_[o].clear();
  touched_outputs_.clear();
}

std::unique_ptr<Allocator> make_allocator(AllocatorKind kind, int inputs, int outputs, int islip_iterations) {
  if (kind == AllocatorKind::kIslip) return std::make_unique<IslipAllocator>(inputs, outputs, islip_iterations);
  return std::make_unique<SeparableInputFirstAllocator>(inputs, outputs);
}

}  // namespace tessera::noc
