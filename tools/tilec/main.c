/* main.c — the tilec command-line tool: the program entry, nothing else; the
 * subcommands and their dispatch are in commands.c (cli_main). */
#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv, false); }
