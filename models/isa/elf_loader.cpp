// ELF loading with libelf: checks that the file is a 32-bit little-endian
// RISC-V executable, then copies its PT_LOAD segments and .symtab symbols.
#include "isa/elf_loader.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tessera::isa {
namespace {

// Owns the file descriptor and the libelf handle.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : path_(path) {
    if (elf_version(EV_CURRENT) == EV_NONE) fail(std::string("libelf initialisation failed: ") + elf_errmsg(-1));
    fd_ = ::open(path.c_str(), O_RDONLY);
    if (fd_ < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(std::string("cannot stat: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail("is a directory, not an ELF file");
    elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
    if (elf_ == nullptr) fail(std::string("cannot read: ") + elf_errmsg(-1));
  }
  ~ElfFile() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  Elf* get() const { return elf_; }

  [[noreturn]] void fail(const std::string& what) const { throw ElfError("ELF file '" + path_ + "': " + what); }

 private:
  std::string path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

const char* type_name(unsigned type) {
  switch (type) {
    case ET_NONE:
      return "ET_NONE";
    case ET_REL:
      return "ET_REL, a relocatable object file: link it into an executable";
    case ET_DYN:
      return "ET_DYN, a shared object or position-independent executable: link with -static -no-pie";
    case ET_CORE:
      return "ET_CORE, a core dump";
    default:
      return "unknown type";
  }
}

}  // namespace

ElfImage load_elf(const std::string& path) {
  ElfFile file(path);
  Elf* e = file.get();
  if (elf_kind(e) != ELF_K_ELF) file.fail("is not an ELF file");

  const int cls = gelf_getclass(e);
  if (cls == ELFCLASS64) {
    file.fail("is a 64-bit ELF; Tessera runs 32-bit RV32 programs, build with -march=rv32imafd -mabi=ilp32d");
  }
  if (cls != ELFCLASS32) file.fail("unknown ELF class " + std::to_string(cls));

  GElf_Ehdr ehdr;
  if (gelf_getehdr(e, &ehdr) == nullptr) file.fail(std::string("bad ELF header: ") + elf_errmsg(-1));
  if (ehdr.e_ident[EI_DATA] != ELFDATA2LSB) file.fail("is big-endian; RISC-V programs are little-endian");
  if (ehdr.e_machine != EM_RISCV) {
    file.fail("is for machine " + std::to_string(ehdr.e_machine) +
              ", not RISC-V (EM_RISCV = " + std::to_string(EM_RISCV) + ")");
  }
  if (ehdr.e_type != ET_EXEC) {
    file.fail(std::string("is not an executable (ET_EXEC); its type is ") + type_name(ehdr.e_type));
  }

  ElfImage image;
  image.entry = static_cast<uint32_t>(ehdr.e_entry);

  size_t file_size = 0;
  const char* raw = elf_rawfile(e, &file_size);
  if (raw == nullptr) file.fail(std::string("cannot read contents: ") + elf_errmsg(-1));

  uint64_t copied = 0;        // file bytes copied into segments
  std::vector<size_t> index;  // program header number of each segment
  size_t phnum = 0;
  if (elf_getphdrnum(e, &phnum) != 0) file.fail(std::string("bad program header table: ") + elf_errmsg(-1));
  for (size_t n = 0; n < phnum; ++n) {
    GElf_Phdr ph;
    if (gelf_getphdr(e, static_cast<int>(n), &ph) == nullptr) {
      file.fail("bad program header " + std::to_string(n) + ": " + elf_errmsg(-1));
    }
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    if (ph.p_filesz > ph.p_memsz) file.fail("segment " + std::to_string(n) + " has p_filesz > p_memsz");
    if (ph.p_offset > file_size || ph.p_filesz > file_size - ph.p_offset) {
      file.fail("segment " + std::to_string(n) + " extends past the end of the file");
    }
    const std::string what = fmt::format("segment {} (at 0x{:08x}, {} bytes)", n, ph.p_vaddr, ph.p_memsz);
    if (ph.p_vaddr + ph.p_memsz > (uint64_t{1} << 32)) file.fail(what + " extends past the 32-bit address space");
    // Instructions are 4 bytes at multiples of 4 (no C extension): code
    // elsewhere would be fetched at addresses that do not hold it.
    if ((ph.p_flags & PF_X) != 0 && ph.p_vaddr % 4 != 0)
      file.fail(what + " is executable but its address is not a multiple of 4");
    // Each segment copies its file bytes; a file whose segments reuse the
    // same bytes over and over would make the image larger than the file.
    copied += ph.p_filesz;
    if (copied > file_size) {
      file.fail(
          fmt::format("{} brings the bytes its loadable segments copy to {}, more than the file's {}: the "
                      "segments overlap in the file",
                      what, copied, file_size));
    }
    ElfSegment seg;
    seg.addr = static_cast<uint32_t>(ph.p_vaddr);
    seg.mem_size = static_cast<uint32_t>(ph.p_memsz);
    seg.executable = (ph.p_flags & PF_X) != 0;
    seg.bytes.assign(raw + ph.p_offset, raw + ph.p_offset + ph.p_filesz);
    image.segments.push_back(std::move(seg));
    index.push_back(n);
  }
  if (image.segments.empty()) file.fail("has no loadable (PT_LOAD) segments");
  // Segments must not overlap in memory: the later one would overwrite the
  // earlier one's bytes, and decoded code would no longer match memory.
  std::vector<size_t> order(image.segments.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return image.segments[a].addr < image.segments[b].addr; });
  for (size_t i = 1; i < order.size(); ++i) {
    const ElfSegment& lo = image.segments[order[i - 1]];
    const ElfSegment& hi = image.segments[order[i]];
    if (uint64_t{lo.addr} + lo.mem_size > hi.addr) {
      file.fail(fmt::format("segments {} (0x{:08x}..0x{:08x}) and {} (0x{:08x}..0x{:08x}) overlap in memory",
                            index[order[i - 1]], lo.addr, uint64_t{lo.addr} + lo.mem_size, index[order[i]], hi.addr,
                            uint64_t{hi.addr} + hi.mem_size));
    }
  }

  // The kernel record: a non-allocated section of JSON text.
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(e, &shstrndx) == 0) {
    for (Elf_Scn* scn = elf_nextscn(e, nullptr); scn != nullptr; scn = elf_nextscn(e, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_PROGBITS) continue;
      const char* name = elf_strptr(e, shstrndx, sh.sh_name);
      if (name == nullptr || std::strcmp(name, ".tessera.kernels") != 0) continue;
      if (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset)
        file.fail("section .tessera.kernels extends past the end of the file");
      try {
        image.kernels = kernels_from_json(std::string(raw + sh.sh_offset, sh.sh_size));
      } catch (const KernelRecordError& err) {
        file.fail(err.what());
      }
      image.has_kernel_record = true;
    }
  }

  uint64_t name_bytes = 0;
  std::vector<FunctionSymbol> functions;
  for (Elf_Scn* scn = elf_nextscn(e, nullptr); scn != nullptr; scn = elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    const size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t k = 0; k < count; ++k) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(k), &sym) == nullptr) continue;
      if (sym.st_shndx == SHN_UNDEF) continue;
      const unsigned type = GELF_ST_TYPE(sym.st_info);
      const unsigned bind = GELF_ST_BIND(sym.st_info);
      const bool wanted =
          type == STT_FUNC || type == STT_OBJECT || (type == STT_NOTYPE && (bind == STB_GLOBAL || bind == STB_WEAK));
      if (!wanted) continue;
      const char* name = elf_strptr(e, sh.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      // Names may share the string table's bytes (one name the tail of
      // another); bounded by the file, they cannot multiply it.
      const size_t length = std::strlen(name);
      name_bytes += length;
      if (name_bytes > file_size) {
        file.fail(
            fmt::format("the names of its symbols (section {}) total more than the file's {} bytes: they "
                        "overlap in the string table",
                        elf_ndxscn(scn), file_size));
      }
      image.symbols.emplace(std::string(name, length), static_cast<uint32_t>(sym.st_value));
      const auto addr = static_cast<uint32_t>(sym.st_value);
      const bool in_code = std::any_of(image.segments.begin(), image.segments.end(),
                                       [&](const ElfSegment& s) { return s.executable && addr - s.addr < s.mem_size; });
      if (in_code && (type == STT_FUNC || type == STT_NOTYPE))
        functions.push_back(FunctionSymbol{std::string(name, length), addr, static_cast<uint32_t>(sym.st_size)});
    }
  }
  std::vector<CodeRange> code;
  for (const ElfSegment& seg : image.segments)
    if (seg.executable) code.push_back(CodeRange{seg.addr, uint64_t{seg.addr} + seg.mem_size});
  image.symbolizer = std::make_shared<const Symbolizer>(std::move(functions), path, std::move(code));
  return image;
}

std::optional<std::string> ElfImage::string_at(uint32_t addr, size_t max_bytes) const {
  for (const ElfSegment& seg : segments) {
    if (addr < seg.addr || addr - seg.addr >= seg.bytes.size()) continue;
    std::string text;
    for (size_t at = addr - seg.addr; at < seg.bytes.size() && text.size() <= max_bytes; ++at) {
      if (seg.bytes[at] == 0) return text;
      text.push_back(static_cast<char>(seg.bytes[at]));
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace tessera::isa
