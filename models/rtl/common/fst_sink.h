// FST waveform sink through fstapi, the writer the Debian verilator package
// ships (and Verilator's own traces use): compressed and indexed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/output_file.h"
#include "sim/waveform.h"

namespace tessera::rtl {

class FstSink : public sim::WaveSink {
 public:
  // ConfigError naming `option` when the file cannot be written or is one of `inputs`.
  FstSink(const std::string& option, const std::string& path, const std::vector<std::string>& inputs = {});
  ~FstSink() override;
  void declare(const std::vector<sim::WaveSignal>& signals) override;
  void time(uint64_t ps) override;
  void value(size_t signal, uint64_t v) override;
  void close(uint64_t end_ps) override;

 private:
  static constexpr uint64_t kFlushChanges = uint64_t{1} << 18;
  static constexpr uint64_t kChangesPerSignal = 16;
  std::string option_, path_;
  sim::OutputFile out_;  // get() unused: fstapi writes out_.writing_path()
  void* ctx_ = nullptr;  // fstapi writer
  std::vector<uint32_t> handles_, widths_;
  uint64_t time_ = 0;
  uint64_t unflushed_ = 0;                  // value changes since the last flush
  uint64_t flush_changes_ = kFlushChanges;  // the changes of a block
};

// The sink for `path`: FST when it ends in ".fst", else VCD.
std::unique_ptr<sim::WaveSink> make_wave_sink(const std::string& option, const std::string& path,
                                              const std::vector<std::string>& inputs = {});

}  // namespace tessera::rtl
