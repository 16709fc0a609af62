#define _POSIX_C_SOURCE 200809L
#include "rt_interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received_signal = 0;
static int installed = 0;

static void on_signal(int sig)
{
    received_signal = sig;
}

void rt_interrupt_install(void)
{
    if (installed)
        return;
    installed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = (int)SA_RESETHAND; /* the second signal is not caught: it ends the process */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int rt_interrupt_signal(void)
{
    return (int)received_signal;
}
