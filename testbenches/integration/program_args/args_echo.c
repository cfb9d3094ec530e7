/* Prints argc and every argv[i] (quoted), checks argv[argc] is null, and
 * returns argc: the program-argument test of docs/firmware-abi.md. */
#include <stdio.h>
#include <tessera.h>

int main(int argc, char** argv) {
  printf("argc %d\n", argc);
  for (int i = 0; i < argc; ++i) printf("argv[%d] '%s'\n", i, argv[i]);
  if (argv[argc] != 0) {
    printf("argv[argc] is not null\n");
    return 100;
  }
  return argc;
}
