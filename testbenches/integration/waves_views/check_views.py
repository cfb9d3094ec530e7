#!/usr/bin/python3
"""gtkwave itself, headless under Xvfb, loads Tessera's views (docs/waveforms.md).

  check_views.py view TESSERA FW_DIR REPO WORK VIEW PLATFORM[,PLATFORM...]
      Runs vecadd on each platform (PLATFORM@KEY=VALUE[+KEY=VALUE...]: with
      those --set) with --vcd WORK/<platform>.fst, loads the
      view with each waveform in gtkwave (a Tcl script lists the signals it
      displays), and checks that gtkwave reported no error (a translate file
      it could not open, a bad save file) and that every signal the view
      names was found in one of the waveforms.
  check_views.py views TESSERA FW_DIR WORK PLATFORM
      `tessera waves PLATFORM --views DIR`: gtkwave, started from /, loads
      every view it writes with a run's waveform and finds every signal;
      labels are unique; every signal of the platform is in some view.
  check_views.py all TESSERA FW_DIR REPO WORK PLATFORM
      The same for a view of every signal `tessera waves PLATFORM --list`
      declares: gtkwave finds each under the name the views use (vectors
      with their [W-1:0] range).
  check_views.py translate TESSERA REPO WORK PLATFORM[,PLATFORM...]
      waves/translate/*.txt are exactly the files `tessera waves PLATFORM
      --translate DIR` writes, over the platforms.
  check_views.py list TESSERA FW_DIR WORK PLATFORM
      `tessera waves PLATFORM --list` names exactly the signals (and widths)
      of a real run's VCD.
A tool this needs that is missing fails the test naming its Debian package.
"""
import os
import re
import shutil
import subprocess
import sys

TCL = """set shown [gtkwave::getDisplayedSignals]
foreach s $shown { puts "SHOWN $s" }
gtkwave::/File/Quit
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def need(tool, package):
    if not shutil.which(tool):
        fail(f"{tool} is not installed: install the Debian package {package} (tools/tessera-setup installs it)")


def run_program(tessera, fw_dir, platform, out):
    platform, _, sets = platform.partition("@")
    cmd = [tessera, "run", platform, os.path.join(fw_dir, "vecadd.elf"), "--vcd", out, "-q"]
    for s in filter(None, sets.split("+")):
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stdout}{r.stderr}")


def view_labels(path):
    """(label, signal) of each signal a view shows; the label is its alias
    (`+{label} signal`), or the signal's own name."""
    shown = []
    for line in open(path):
        line = line.strip()
        if not line or line[0] in "[@-^*":
            continue
        m = re.match(r"\+\{([^}]*)\} (.*)", line)
        shown.append((m.group(1), m.group(2)) if m else (line, line))
    return shown


def view_signals(path):
    return [signal for _, signal in view_labels(path)]


def gtkwave_shows(repo, work, wave, view):
    """Signals gtkwave displays for `view` with `wave`, run from directory `repo`."""
    script = os.path.join(work, "list_signals.tcl")
    with open(script, "w") as f:
        f.write(TCL)
    cmd = ["xvfb-run", "-a", "gtkwave", "-S", script, wave, view]
    r = subprocess.run(cmd, capture_output=True, timeout=300, cwd=repo)
    out = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n{out}")
    errors = [l for l in out.splitlines()
              if re.search(r"could not|error|cannot|not found|unknown", l, re.I) and not l.startswith("SHOWN")]
    if errors:
        fail(f"gtkwave reported errors loading {view} with {wave}:\n" + "\n".join(errors))
    return {l[6:] for l in out.splitlines() if l.startswith("SHOWN ")}


def check_view(tessera, fw_dir, repo, work, view, platforms):
    need("xvfb-run", "xvfb")
    need("xauth", "xauth")
    need("gtkwave", "gtkwave")
    os.makedirs(work, exist_ok=True)
    found = set()
    for p in platforms:
        wave = os.path.join(work, p.partition("@")[0] + ".fst")
        run_program(tessera, fw_dir, p, wave)
        found |= gtkwave_shows(repo, work, wave, view)
    missing = [s for s in view_signals(view) if s not in found]
    if missing:
        fail(f"{os.path.basename(view)}: gtkwave did not find {len(missing)} of its signals in the waveform of "
             f"{', '.join(platforms)} (names or widths differ from the models'):\n  " + "\n  ".join(missing))
    print(f"{os.path.basename(view)}: gtkwave found all {len(view_signals(view))} signals")


def check_views(tessera, fw_dir, work, platform):
    """`tessera waves PLATFORM --views DIR` on one platform: gtkwave, started
    from /, loads each view without an error and finds every signal it names
    (the translate files and the PC filter by their absolute paths); labels
    are unique in a view, end with the signal's name and hold no '.' (gtkwave
    would show only what follows it); every signal the
    platform declares is in some view."""
    need("xvfb-run", "xvfb")
    need("xauth", "xauth")
    need("gtkwave", "gtkwave")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    wave = os.path.join(work, platform.partition("@")[0] + ".fst")
    run_program(tessera, fw_dir, platform, wave)
    name, _, sets = platform.partition("@")
    out = os.path.join(work, "views")
    cmd = [tessera, "waves", name, "--views", out, "--program", os.path.join(fw_dir, "vecadd.elf")]
    for s in filter(None, sets.split("+")):
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stderr}")
    views = r.stdout.split()
    if not views:
        fail(f"{' '.join(cmd)} wrote no view")
    in_views = set()
    for view in views:
        labels = view_labels(view)
        seen = {}
        for label, signal in labels:
            if label in seen:
                fail(f"{view}: label {label} names both {seen[label]} and {signal}")
            seen[label] = signal
            if "." in label or not signal.endswith(label.split("/")[-1]):
                fail(f"{view}: label {label} does not end with the name of {signal}")
        for line in open(view):
            if line.startswith("^") and not line.split(None, 1)[1].startswith("/"):
                fail(f"{view}: {line.strip()}: a relative path, which gtkwave looks up from its working directory")
        found = gtkwave_shows("/", work, wave, view)
        missing = [sig for _, sig in labels if sig not in found]
        if missing:
            fail(f"{view}: gtkwave did not find {len(missing)} of its signals in the waveform of {platform}:\n  "
                 + "\n  ".join(missing[:20]))
        in_views |= {sig for _, sig in labels}
        print(f"{os.path.basename(view)}: gtkwave found all {len(labels)} signals")
    declared = {p + (f"[{w - 1}:0]" if w > 1 else "") for p, w in listed(tessera, name, sets)}
    if declared - in_views:
        fail(f"{len(declared - in_views)} signals of {platform} are in no view: {sorted(declared - in_views)[:20]}")
    print(f"{platform}: {len(views)} views show all {len(declared)} signals")


def listed(tessera, platform, sets=""):
    cmd = [tessera, "waves", platform, "--list"]
    for s in filter(None, sets.split("+")):
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail(f"tessera waves {platform} --list exited with {r.returncode}:\n{r.stderr}")
    sigs = []
    for line in r.stdout.splitlines():
        parts = line.split()
        sigs.append((parts[0], int(parts[1])))
    return sigs


def check_all(tessera, fw_dir, repo, work, platform):
    os.makedirs(work, exist_ok=True)
    view = os.path.join(work, f"all_{platform}.gtkw")
    with open(view, "w") as f:
        for path, width in listed(tessera, platform):
            f.write(path + (f"[{width - 1}:0]" if width > 1 else "") + "\n")
    check_view(tessera, fw_dir, repo, work, view, [platform])


def check_translate(tessera, repo, work, platforms):
    out = os.path.join(work, "translate")
    shutil.rmtree(out, ignore_errors=True)
    for p in platforms:
        r = subprocess.run([tessera, "waves", p, "--translate", out], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            fail(f"tessera waves {p} --translate exited with {r.returncode}:\n{r.stderr}")
    committed_dir = os.path.join(repo, "waves", "translate")
    written = sorted(os.listdir(out)) if os.path.isdir(out) else []
    committed = sorted(f for f in os.listdir(committed_dir) if f.endswith(".txt"))
    problems = []
    for name in sorted(set(written) | set(committed)):
        if name not in written:
            problems.append(f"waves/translate/{name}: no enum of that name on {', '.join(platforms)}")
        elif name not in committed:
            problems.append(f"waves/translate/{name} is missing (the models have enum {name[:-4]})")
        elif open(os.path.join(out, name)).read() != open(os.path.join(committed_dir, name)).read():
            problems.append(f"waves/translate/{name} differs from the model's table")
    if problems:
        fail("\n".join(problems) + f"\nregenerate with: for p in {' '.join(platforms)}; do "
             "build/tessera waves $p --translate waves/translate; done")
    print(f"waves/translate: {len(committed)} files equal the models' enum tables")


def check_list(tessera, fw_dir, work, platform):
    os.makedirs(work, exist_ok=True)
    wave = os.path.join(work, platform + "_list.vcd")
    run_program(tessera, fw_dir, platform, wave)
    in_file, scope = {}, []
    for line in open(wave):
        t = line.split()
        if not t:
            continue
        if t[0] == "$scope":
            scope.append(t[2])
        elif t[0] == "$upscope":
            scope.pop()
        elif t[0] == "$var":
            in_file[".".join(scope + [t[4]])] = int(t[2])
        elif t[0] == "$enddefinitions":
            break
    declared = dict(listed(tessera, platform))
    if declared != in_file:
        only_list = sorted(set(declared.items()) - set(in_file.items()))
        only_file = sorted(set(in_file.items()) - set(declared.items()))
        fail(f"tessera waves {platform} --list and the run's VCD differ:\n only listed: {only_list[:20]}\n"
             f" only in the VCD: {only_file[:20]}")
    print(f"tessera waves {platform} --list: {len(declared)} signals, as in the VCD")


def main(argv):
    mode = argv[1]
    if mode == "view":
        check_view(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7].split(","))
    elif mode == "views":
        check_views(argv[2], argv[3], argv[4], argv[5])
    elif mode == "all":
        check_all(argv[2], argv[3], argv[4], argv[5], argv[6])
    elif mode == "translate":
        check_translate(argv[2], argv[3], argv[4], argv[5].split(","))
    elif mode == "list":
        check_list(argv[2], argv[3], argv[4], argv[5])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main(sys.argv)
