#include "sm/shared_bank_coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace tessera::sm {

namespace {

// Point indices: the operations in BankOp order, then the rest.
constexpr size_t kOps = 0;
constexpr size_t kBroadcastLoad = kOps + kBankOpCount;
constexpr size_t kBroadcastStore = kBroadcastLoad + 1;
constexpr size_t kDegree1 = kBroadcastStore + 1;  // .. kDegree1 + 31
constexpr size_t kMaxDegree = 32;
constexpr size_t kMaskEmpty = kDegree1 + kMaxDegree;
constexpr size_t kMaskSingle = kMaskEmpty + 1;
constexpr size_t kMaskPartial = kMaskSingle + 1;
constexpr size_t kMaskFull = kMaskPartial + 1;
constexpr size_t kSubword = kMaskFull + 1;
constexpr size_t kSameWord = kSubword + 1;
constexpr size_t kCasMatch = kSameWord + 1;
constexpr size_t kCasMismatch = kCasMatch + 1;
constexpr size_t kStall = kCasMismatch + 1;
constexpr size_t kBackToBack = kStall + 1;
constexpr size_t kPoints = kBackToBack + 1;

// Cover-point names of the operations, in BankOp order (stable: files and
// docs name them).
constexpr const char* kOpPoints[kBankOpCount] = {
    "load",           "store",           "atomic.swap",    "atomic.add",     "atomic.xor",
    "atomic.and",     "atomic.or",       "atomic.min_i32", "atomic.max_i32", "atomic.min_u32",
    "atomic.max_u32", "atomic.fadd_f32", "atomic.inc",     "atomic.dec",     "atomic.cas"};

bool two_lanes_on_one_word(const BankRequest& r) {
  std::array<uint32_t, 32> w;
  unsigned n = 0;
  for (uint32_t m = r.mask; m; m &= m - 1) w[n++] = r.word[static_cast<unsigned>(__builtin_ctz(m))];
  std::sort(w.begin(), w.begin() + n);
  return std::adjacent_find(w.begin(), w.begin() + n) != w.begin() + n;
}

}  // namespace

const std::vector<std::string>& SharedBankCoverage::point_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const char* op : kOpPoints) n.push_back(fmt::format("shared_bank.{}", op));
    n.push_back("shared_bank.broadcast.load");
    n.push_back("shared_bank.broadcast.store");
    for (size_t d = 1; d <= kMaxDegree; ++d) n.push_back(fmt::format("shared_bank.conflict.degree{}", d));
    for (const char* s : {"mask.empty", "mask.single", "mask.partial", "mask.full", "store.subword", "atomic.same_word",
                          "atomic.cas_match", "atomic.cas_mismatch", "stall", "back_to_back"})
      n.push_back(fmt::format("shared_bank.{}", s));
    return n;
  }();
  return names;
}

SharedBankCoverage::SharedBankCoverage(std::shared_ptr<rtl::CoverTable> table) : table_(std::move(table)) {
  if (table_->size() != kPoints) throw std::logic_error("SharedBankCoverage: a table of other points");
}

void SharedBankCoverage::sample(const BankRequest* req, bool ready, const BankResponse* resp) {
  rtl::CoverTable& t = *table_;
  const bool take = req && ready;
  if (req && !ready) t.hit(kStall);
  if (take) {
    const BankRequest& r = *req;
    t.hit(kOps + static_cast<size_t>(r.op));
    const int lanes = __builtin_popcount(r.mask);
    t.hit(lanes == 0 ? kMaskEmpty : lanes == 1 ? kMaskSingle : lanes == 32 ? kMaskFull : kMaskPartial);
    if (in_service_) t.hit(kBackToBack);
    if (r.op == BankOp::kStore) {
      for (uint32_t m = r.mask; m; m &= m - 1) {
        if (r.be[static_cast<unsigned>(__builtin_ctz(m))] != 0xf) {
          t.hit(kSubword);
          break;
        }
      }
    } else if (is_atomic(r.op) && lanes > 1 && two_lanes_on_one_word(r)) {
      t.hit(kSameWord);
    }
  }
  // The answer (after this cycle) is the request in service's; a request
  // taken in this cycle is answered later.
  if (resp && in_service_) {
    if (resp->passes >= 1 && resp->passes <= kMaxDegree) t.hit(kDegree1 + resp->passes - 1);
    if (resp->broadcasts > 0 && op_ == BankOp::kLoad) t.hit(kBroadcastLoad);
    if (resp->broadcasts > 0 && op_ == BankOp::kStore) t.hit(kBroadcastStore);
    if (op_ == BankOp::kCas) {
      bool match = false, mismatch = false;
      for (uint32_t m = resp->mask; m; m &= m - 1) {
        const auto l = static_cast<unsigned>(__builtin_ctz(m));
        (resp->data[l] == compare_[l] ? match : mismatch) = true;
      }
      if (match) t.hit(kCasMatch);
      if (mismatch) t.hit(kCasMismatch);
    }
    in_service_ = false;
  }
  if (take) {
    in_service_ = true;
    op_ = req->op;
    if (op_ == BankOp::kCas) compare_ = req->data;
  }
}

}  // namespace tessera::sm
