# gdb commands for Tessera's gdb stub (tessera run ... --gdb PORT;
# docs/debugging.md). Load with: gdb-multiarch -x tools/tessera.gdb PROGRAM.elf

# lane N: show lane N's registers (and so its variables) for the current
# warp thread. gdb caches a thread's registers, so the cache is dropped too.
define lane
  monitor lane $arg0
  maintenance flush register-cache
end
document lane
Show lane N of the current SM warp thread: its registers, pc and variables.
Usage: lane N
end

# lanes: the current thread's lanes and the one shown.
define lanes
  monitor lanes
end
document lanes
List the lanes of the current thread and the one whose registers are shown.
end
