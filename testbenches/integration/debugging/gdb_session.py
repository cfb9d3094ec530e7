#!/usr/bin/env python3
"""Drives one `tessera run ... --gdb 0` with Debian's gdb-multiarch in batch
mode (the debugging tests, GdbSession.*) and prints what both said as JSON.

    gdb_session.py TESSERA PLATFORM ELF [--timeout S] -- GDB_COMMAND...

Tessera picks a free port and names it on stderr; gdb connects to it with
the ELF's symbols, runs the commands and quits. Exits non-zero, saying why,
when gdb-multiarch is missing or either side hangs."""
import json
import re
import shutil
import subprocess
import sys
import threading


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    split = sys.argv.index("--")
    args, commands = sys.argv[1:split], sys.argv[split + 1:]
    timeout = 120
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 3:
        sys.exit(__doc__)
    tessera, platform, elf = args[:3]
    gdb = shutil.which("gdb-multiarch")
    if not gdb:
        sys.exit("gdb_session.py: gdb-multiarch is not installed (apt-get install gdb-multiarch; "
                 "tools/tessera-setup installs it)")

    sim = subprocess.Popen([tessera, "run", platform, elf, "--gdb", "0"] + args[3:], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    # The notice names the port; everything tessera says is kept.
    err_lines, out_lines, port = [], [], None
    while port is None:
        line = sim.stderr.readline()
        if not line:
            sim.wait(timeout=timeout)
            print(json.dumps({"error": "tessera exited before listening", "sim_status": sim.returncode,
                              "sim_err": "".join(err_lines) + sim.stderr.read()}))
            return 1
        err_lines.append(line)
        m = re.search(r"waiting for gdb on 127\.0\.0\.1:(\d+)", line)
        if m:
            port = m.group(1)
    readers = [threading.Thread(target=lambda: err_lines.extend(sim.stderr)),
               threading.Thread(target=lambda: out_lines.extend(sim.stdout))]
    for r in readers:
        r.start()

    cmd = [gdb, "-batch", "-nx", "-ex", "set architecture riscv:rv32", "-ex", "set pagination off",
           "-ex", "set width 0", "-ex", f"target remote :{port}"]
    for c in commands:
        cmd += ["-ex", c]
    cmd.append(elf)
    try:
        g = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        gdb_out, gdb_status = g.stdout, g.returncode
    except subprocess.TimeoutExpired as e:
        gdb_out, gdb_status = (e.stdout or b"").decode() + "\n[gdb timed out]", -1
    try:
        sim_status = sim.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        sim.kill()
        sim_status = sim.wait()
        err_lines.append("[tessera timed out after gdb quit]\n")
    for r in readers:
        r.join()
    print(json.dumps({"gdb_out": gdb_out, "gdb_status": gdb_status, "sim_status": sim_status,
                      "sim_err": "".join(err_lines), "sim_out": "".join(out_lines)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
