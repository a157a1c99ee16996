/* main.c - `simt`, the command-line client of simtd. Everything is in
 * commands.c; this file only hands it the command line. */
#include "cli.h"

int main(int argc, char **argv)
{
    return simt_cli_main(argc, argv);
}
