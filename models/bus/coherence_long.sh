#!/bin/sh
# The long acceptance run of the random coherence tester: every protocol with
# 4 and 8 cores, 1,000,000 operations each; then with transactions (--htm) on
# the four versioning x detection corners. Usage: coherence_long.sh TESSERA_BIN
set -e
bin="$1"
for protocol in msi mesi mesif moesi dragon; do
  for cores in 4 8; do
    "$bin" coherence-test --protocol "$protocol" --cores "$cores" --seed 1 --ops 1000000
  done
done
for protocol in msi mesi mesif moesi dragon; do
  for cores in 4 8; do
    for versioning in eager lazy; do
      for detection in pessimistic optimistic; do
        "$bin" coherence-test --htm --protocol "$protocol" --cores "$cores" --seed 1 --ops 1000000 \
          --set htm.versioning="$versioning" --set htm.detection="$detection"
      done
    done
  done
done
