#include "rtl/common/fst_sink.h"

#include <fmt/format.h>
#include <gtkwave/fstapi.h>

#include <algorithm>

#include "sim/config.h"
#include "sim/output_file.h"
#include "sim/vcd.h"

namespace tessera::rtl {

FstSink::FstSink(const std::string& option, const std::string& path, const std::vector<std::string>& inputs)
    : option_(option), path_(path) {
  // An output like any other (checked, staged, in place only on success);
  // fstapi writes its staging file by name.
  out_ = sim::OutputFile(option, path, inputs);
  ctx_ = fstWriterCreate(out_.writing_path().c_str(), 1);
  if (!ctx_) throw sim::ConfigError(fmt::format("{} {}: cannot create the FST file", option, path));
  fstWriterSetTimescale(ctx_, -12);  // picoseconds, as sim::Waveform
  fstWriterSetPackType(ctx_, FST_WR_PT_LZ4);
  fstWriterSetVersion(ctx_, "Tessera");
}

FstSink::~FstSink() {
  if (ctx_) fstWriterClose(ctx_);
}

void FstSink::declare(const std::vector<sim::WaveSignal>& signals) {
  // Enum-valued signals are written as plain numbers: gtkwave names them
  // through the translate files of waves/translate, which the views attach
  // (with an FST enum table on a signal, gtkwave 3.3 ignores a translate
  // file and shows numbers in the views), so FST and VCD look alike.
  handles_.resize(signals.size());
  // A flush walks every signal's state: a block holds at least
  // kChangesPerSignal changes a signal, so that the walks cost a bounded
  // share (an RTL bank unit's RAM makes 16,384 signals per SM).
  flush_changes_ = std::max<uint64_t>(kFlushChanges, kChangesPerSignal * signals.size());
  for (const auto& s : signals) widths_.push_back(s.width);
  sim::walk_scopes(signals, sim::ScopeWalker{[&](const std::string& name) {
                                               fstWriterSetScope(ctx_, FST_ST_VCD_MODULE, name.c_str(), nullptr);
                                             },
                                             [&] { fstWriterSetUpscope(ctx_); },
                                             [&](size_t i) {
                                               const sim::WaveSignal& s = signals[i];
                                               handles_[i] = fstWriterCreateVar(ctx_, FST_VT_VCD_WIRE, FST_VD_IMPLICIT,
                                                                                s.width, s.name.c_str(), 0);
                                             }});
}

void FstSink::time(uint64_t ps) {
  fstWriterEmitTimeChange(ctx_, ps);
  time_ = ps;
}

void FstSink::value(size_t signal, uint64_t v) {
  fstWriterEmitValueChange64(ctx_, handles_[signal], widths_[signal], v);
  // fstapi keeps a block's changes in a buffer it grows 4 MiB at a time
  // (each growth copies it) up to 128 MiB: a block per 2^18 changes keeps
  // the buffer small (SGEMM on chip, every signal: 2.1 s of CPU before,
  // 1.1 s after, the file 6% larger). The flush happens at the next time
  // change.
  if (++unflushed_ == flush_changes_) {
    fstWriterFlushContext(ctx_);
    unflushed_ = 0;
  }
}

void FstSink::close(uint64_t end_ps) {
  if (!ctx_) return;
  if (end_ps > time_) fstWriterEmitTimeChange(ctx_, end_ps);
  const bool failed = fstWriterGetFseekFailed(ctx_) != 0;
  fstWriterClose(ctx_);
  ctx_ = nullptr;
  if (failed) throw sim::OutputError(fmt::format("{} {}: writing the FST file failed", option_, path_));
  out_.close();
}

std::unique_ptr<sim::WaveSink> make_wave_sink(const std::string& option, const std::string& path,
                                              const std::vector<std::string>& inputs) {
  const bool fst = path.size() > 4 && path.compare(path.size() - 4, 4, ".fst") == 0;
  if (fst) return std::make_unique<FstSink>(option, path, inputs);
  return std::make_unique<sim::VcdSink>(option, path, inputs);
}

}  // namespace tessera::rtl
