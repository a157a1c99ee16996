/* demangle.h - C++ kernel names for people, through c++filt.
 *
 * simt_cli_demangle writes the demangled form of each of the count names
 * into out[i] (name_size bytes each, caller-owned). Returns 0; or -1 when
 * c++filt could not be run or answered oddly, and out[] then holds the
 * names unchanged. */
#ifndef SIMT_CLI_DEMANGLE_H
#define SIMT_CLI_DEMANGLE_H

#include <stddef.h>

int simt_cli_demangle(const char *const *names, size_t count, char **out, size_t name_size);

#endif
