/* A fake lab program for the grader's sandbox and limit tests (grader/tests/test_sandbox.py):
 * its first argument says how to misbehave, the second is the output file, the third (when
 * there is one) a path, a port or a marker.
 *
 *   hostile MODE OUTPUT [ARG]
 *   right      writes 8 float32 values 0..7 (the right answer) to OUTPUT
 *   steal      copies the file ARG (an expected output) to OUTPUT
 *   escape     creates the file ARG, then writes the right answer
 *   connect    connects to 127.0.0.1:ARG and sends "stolen", then writes the right answer
 *   forkbomb   forks without end
 *   spin       loops forever
 *   flood      prints 40 MB to stdout, then writes the right answer
 *   bigfile    writes to OUTPUT without end
 *   daemon     leaves a child behind in a new session (argv marker ARG), writes the right answer
 *   env        prints the environment variable ARG to stderr and exits 7
 *   segv, abort, nothing
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int right(const char *output)
{
    float values[8];
    for (int i = 0; i < 8; ++i)
        values[i] = (float)i;
    FILE *f = fopen(output, "wb");
    if (!f)
        return 9;
    fwrite(values, sizeof values, 1, f);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argv[1], *output = argv[2], *arg = argc > 3 ? argv[3] : "";
    if (!strcmp(mode, "right"))
        return right(output);
    if (!strcmp(mode, "steal")) {
        FILE *in = fopen(arg, "rb"), *out = fopen(output, "wb");
        if (!in) {
            perror(arg);
            return 8;
        }
        char buffer[4096];
        size_t got;
        while ((got = fread(buffer, 1, sizeof buffer, in)) > 0)
            fwrite(buffer, 1, got, out);
        fclose(out);
        return 0;
    }
    if (!strcmp(mode, "escape")) {
        FILE *f = fopen(arg, "w");
        if (f) {
            fputs("escaped\n", f);
            fclose(f);
        }
        return right(output);
    }
    if (!strcmp(mode, "connect")) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in to = {0};
        to.sin_family = AF_INET;
        to.sin_port = htons((unsigned short)atoi(arg));
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&to, sizeof to) == 0)
            write(fd, "stolen", 6);
        else
            perror("connect");
        close(fd);
        return right(output);
    }
    if (!strcmp(mode, "forkbomb"))
        for (;;)
            fork();
    if (!strcmp(mode, "spin"))
        for (volatile unsigned long i = 0;; ++i)
            ;
    if (!strcmp(mode, "flood")) {
        static char line[4096];
        memset(line, 'x', sizeof line - 1);
        for (int i = 0; i < 10000; ++i)
            puts(line);
        return right(output);
    }
    if (!strcmp(mode, "bigfile")) {
        static char block[1 << 20];
        FILE *f = fopen(output, "wb");
        for (;;)
            fwrite(block, 1, sizeof block, f);
    }
    if (!strcmp(mode, "daemon")) {
        if (fork() == 0) {
            setsid();
            if (fork() == 0) {
                char *again[] = {(char *)arg, "3600", NULL};  /* argv[0]: the marker */
                execv("/bin/sleep", again);
            }
            _exit(0);
        }
        return right(output);
    }
    if (!strcmp(mode, "env")) {
        const char *value = getenv(arg);
        fprintf(stderr, "%s=%s\n", arg, value ? value : "(not set)");
        return 7;
    }
    if (!strcmp(mode, "segv"))
        raise(SIGSEGV);
    if (!strcmp(mode, "abort"))
        abort();
    if (!strcmp(mode, "nothing"))
        return 0;
    fprintf(stderr, "hostile: unknown mode %s\n", mode);
    return 2;
}
