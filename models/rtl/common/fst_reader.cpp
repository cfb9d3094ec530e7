#include "rtl/common/fst_reader.h"

#include <fmt/format.h>
#include <gtkwave/fstapi.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "sim/config.h"

namespace tessera::rtl {

namespace {

struct Reading {
  std::unordered_map<fstHandle, std::vector<SignalTrace*>> by_handle;  // aliases share a handle
};

void on_change(void* user, uint64_t time, fstHandle handle, const unsigned char* value) {
  auto& r = *static_cast<Reading*>(user);
  const auto it = r.by_handle.find(handle);
  if (it == r.by_handle.end()) return;
  for (SignalTrace* s : it->second) {
    // MSB first, one character per bit; x, z and the rest read as 0.
    uint64_t v = 0;
    for (unsigned i = 0; i < s->width; ++i) v = (v << 1) | (value[i] == '1' ? 1 : 0);
    s->changes.emplace_back(time, v);
  }
}

}  // namespace

FstContents read_fst(const std::string& path, const std::function<bool(const std::string&)>& want) {
  std::unique_ptr<void, void (*)(void*)> ctx(fstReaderOpen(path.c_str()), fstReaderClose);
  if (!ctx) throw sim::ConfigError(fmt::format("{}: not a readable FST file", path));
  FstContents out;
  out.end_time = fstReaderGetEndTime(ctx.get());
  out.timescale = fstReaderGetTimescale(ctx.get());
  Reading reading;
  std::vector<std::string> scope;
  fstReaderIterateHierRewind(ctx.get());
  while (const fstHier* h = fstReaderIterateHier(ctx.get())) {
    switch (h->htyp) {
      case FST_HT_SCOPE:
        scope.emplace_back(h->u.scope.name, h->u.scope.name_length);
        break;
      case FST_HT_UPSCOPE:
        if (!scope.empty()) scope.pop_back();
        break;
      case FST_HT_VAR: {
        std::string name;
        for (const std::string& s : scope) name += s + ".";
        name.append(h->u.var.name, h->u.var.name_length);
        // fstapi names vectors with their range ("pc [31:0]"): drop it.
        if (const size_t space = name.find(' '); space != std::string::npos) name.resize(space);
        if (!want(name)) break;
        SignalTrace& s = out.signals[name];
        s.width = std::min<unsigned>(h->u.var.length, 64);
        reading.by_handle[h->u.var.handle].push_back(&s);
        break;
      }
      default:
        break;
    }
  }
  if (reading.by_handle.empty()) return out;
  fstReaderClrFacProcessMaskAll(ctx.get());
  for (const auto& [handle, signals] : reading.by_handle) fstReaderSetFacProcessMask(ctx.get(), handle);
  if (!fstReaderIterBlocks(ctx.get(), on_change, &reading, nullptr))
    throw sim::ConfigError(fmt::format("{}: the FST file's value changes cannot be read", path));
  return out;
}

}  // namespace tessera::rtl
