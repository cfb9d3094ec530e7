// The control cores' transactions (docs/htm.md): run_hart's transaction
// handler (an aborted transaction's rollback, then the tx.* instructions)
// and the transaction-control operations it issues to the engine.
#include <fmt/format.h>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

ControlCluster::Step ControlCluster::on_transaction(Pass& p) {
  Hart& h = p.h;
  const unsigned id = h.id();
  if (h.tx_depth > 0 && engine_->tx_abort_pending(id)) {
    // The transaction aborted: whatever ran since is discarded; the engine
    // rolls back (an eager walk takes time), then the checkpoint returns.
    if (p.t != p.now) return Step::kWait;
    completed_[id].reset();
    first_half_[id].reset();
    issue_tx(h, bus::OpKind::kTxRollback, p.t, 0, [this, &h](uint32_t) {
      const uint32_t status = engine_->tx_status(h.id());
      h.state = h.tx_checkpoint;
      if (h.tx_rd != 0) h.state.x[h.tx_rd] = status;
      h.tx_depth = 0;
    });
    return Step::kWait;
  }
  if (isa::is_tx_op(p.inst.op) && !completed_[id])
    return run_tx_instruction(h, p.inst, p.t, p.now) ? Step::kWait : Step::kAgain;
  return Step::kNext;
}

void ControlCluster::issue_tx(Hart& h, bus::OpKind kind, uint64_t t, uint32_t value,
                              std::function<void(uint32_t)> done) {
  bus::Op op;
  op.kind = kind;
  op.value = value;
  if (kind == bus::OpKind::kTxBegin) {
    op.addr = h.tx_log_base;
    op.value = h.tx_log_size;
  }
  issued_at_[h.id()] = t;
  set_mode(h, Hart::Mode::kWaitMemory, t);
  engine_->issue(h.id(), op, [this, &h, done = std::move(done)](uint32_t v) {
    done(v);
    resume(h);
  });
}

void ControlCluster::abort_transaction(Hart& h, uint32_t status, uint64_t t) {
  issue_tx(h, bus::OpKind::kTxAbort, t, status, [](uint32_t) {});
}

bool ControlCluster::run_tx_instruction(Hart& h, const isa::Inst& inst, uint64_t t, uint64_t now) {
  const uint32_t pc = h.state.pc;
  auto retire_local = [&](uint32_t rd_value, bool write_rd) {
    if (write_rd && inst.rd != 0) h.state.x[inst.rd] = rd_value;
    h.state.pc = pc + 4;
    retired(h, t);
    h.ready_at = t + 1;
    return false;
  };
  switch (inst.op) {
    case isa::Op::kTxTest:
      return retire_local(h.tx_depth, true);
    case isa::Op::kTxBegin:
      if (h.tx_depth > 0) {
        if (h.tx_depth >= engine_->params().htm.max_depth) {
          if (t != now) return true;
          abort_transaction(h, isa::tx::abort_status(isa::tx::AbortReason::kNesting), t);
          return true;
        }
        ++h.tx_depth;
        return retire_local(0, true);
      }
      if (refuse_undo_log(h)) return true;
      if (t != now) return true;  // the engine begins it at its own time
      if (draining_) {
        h.ready_at = t + 1;
        return true;
      }
      issue_tx(h, bus::OpKind::kTxBegin, t, 0, [this, &h, pc, rd = inst.rd](uint32_t) {
        if (rd != 0) h.state.x[rd] = 0;
        h.state.pc = pc + 4;
        h.tx_checkpoint = h.state;
        h.tx_rd = rd;
        h.tx_depth = 1;
        retired(h, engine_->now());
      });
      return true;
    case isa::Op::kTxEnd:
      if (h.tx_depth == 0) {
        run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                  fmt::format("{}.core{}: tx.end outside a transaction at pc {}", name(), h.id(), pc_text(pc)));
        return true;
      }
      if (h.tx_depth > 1) {
        --h.tx_depth;
        return retire_local(0, false);
      }
      if (t != now) return true;
      issue_tx(h, bus::OpKind::kTxCommit, t, 0, [this, &h, pc](uint32_t failed) {
        if (failed) return;  // aborted: the rollback comes next
        h.tx_depth = 0;
        h.state.pc = pc + 4;
        retired(h, engine_->now());
      });
      return true;
    case isa::Op::kTxAbort:
      if (h.tx_depth == 0) return retire_local(0, false);  // nothing to abort
      if (t != now) return true;
      abort_transaction(h, isa::tx::abort_status(isa::tx::AbortReason::kExplicit, static_cast<uint8_t>(inst.imm)), t);
      return true;
    default:
      return false;
  }
}

bool ControlCluster::refuse_undo_log(Hart& h) {
  // Only eager versioning writes the log: old values go to txlogbase +
  // 8 * n as two words, which the caches write back to global memory.
  if (engine_->params().htm.versioning != bus::Versioning::kEager || h.tx_log_size == 0) return false;
  const uint32_t base = h.tx_log_base, bytes = h.tx_log_size;
  const uint64_t end = uint64_t{base} + bytes;
  std::string why;
  if (base % 4 != 0)
    why = fmt::format("txlogbase 0x{:08x} is not 4-byte aligned", base);
  else if (!global_.contains(base, bytes))
    why = fmt::format("[0x{:08x}, 0x{:x}) is outside global memory [0x{:08x}, 0x{:x})", base, end, global_.base(),
                      uint64_t{global_.base()} + global_.size());
  else if (program_.overlaps(base, bytes))
    why = fmt::format("[0x{:08x}, 0x{:x}) overlaps the program's code, which is read-only", base, end);
  if (why.empty()) return false;
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: tx.begin with an undo log (txlogbase, txlogsize {}) the core cannot write: {} "
                        "at pc {}",
                        name(), h.id(), bytes, why, pc_text(h.state.pc)));
  return true;
}

}  // namespace tessera::cpu
