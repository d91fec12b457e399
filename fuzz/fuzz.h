/* fuzz.h - what the fuzz targets share (see fuzz/README).
 *
 * Each target defines LLVMFuzzerTestOneInput and may define
 * LLVMFuzzerInitialize. Built with clang -fsanitize=fuzzer it is a
 * libFuzzer program (make fuzz); built with driver.c instead it is a
 * plain program that runs the given files once each (make check). */
#ifndef SR_FUZZ_H
#define SR_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* stub_err.c stands in for lib/err.c. sr_warn* say nothing unless
 * SR_FUZZ_VERBOSE is set. sr_fatal, sr_fatal_sys and sr_usage with exit
 * code fz_expect_code (a target's expected way to refuse an input) jump
 * to *fz_jump when it is set; any other fatal is a bug: abort(), which the
 * fuzzer reports as a crash. */
extern jmp_buf *fz_jump;
extern int fz_expect_code;

/* A NUL-terminated malloc'd copy of data (exactly size + 1 bytes, so
 * that ASan sees a read past the end). */
char *fz_strndup(const uint8_t *data, size_t size);

/* A new private directory NAME.XXXXXX for a target's files, in $TMPDIR,
 * else /dev/shm when writable (a file per input is ten times faster on a
 * tmpfs), else /tmp; its path in buf. 0, or -1 with errno set. */
int fz_tmpdir(char *buf, size_t len, const char *name);

#endif
