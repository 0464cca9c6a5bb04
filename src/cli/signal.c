/* Ctrl-C, kill and a closed terminal end the run without leaving
 * temporary output files behind.  The signals are blocked in every thread
 * (the decoding threads inherit the mask from main) and one thread waits
 * for them: it can then take the lock of the list of temporary files like
 * any other thread, which a signal handler could not do safely. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

#include "cli.h"
#include "sy_atomic_file.h"

static sigset_t sy_sigs;
static pthread_t sy_sig_thread;
static int sy_sig_started;
static int sy_sig_wake;		/* a signal of the set, to end the thread */
/* set by main, read by the signal thread: an atomic, not a volatile (the
 * two are threads, not a thread and its signal handler) */
static atomic_int sy_sig_stopping;

static void *sy_signal_thread(void *arg)
{
	int sig = 0;

	(void)arg;
	if (sigwait(&sy_sigs, &sig) || atomic_load(&sy_sig_stopping))
		return NULL;
	sy_atomic_remove_all();
	/* die of the signal, so that the shell sees 128 + N (130 for
	 * SIGINT, 143 for SIGTERM, 129 for SIGHUP) and a script that ran us
	 * stops as it would for any other program */
	signal(sig, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	return NULL;
}

int sy_cli_signals_start(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	int any = 0;

	/* A closed pipe does not kill the run: SIGPIPE is raised on the
	 * thread that wrote, where no lock may be taken to remove the
	 * temporary files.  Ignored, the write fails with EPIPE instead: an
	 * output that cannot be written ends the run (exit 1, its temporary
	 * files removed, like any write error), and messages to a closed
	 * standard error are dropped while the outputs are still written. */
	signal(SIGPIPE, SIG_IGN);

	sigemptyset(&sy_sigs);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* a signal ignored when we start (nohup, a background job
		 * of a non-interactive shell) stays ignored */
		if (sigaction(sigs[i], NULL, &old) ||
		    old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&sy_sigs, sigs[i]);
		sy_sig_wake = sigs[i];
		any = 1;
	}
	if (!any)
		return 0;
	if (pthread_sigmask(SIG_BLOCK, &sy_sigs, NULL))
		return -1;
	if (pthread_create(&sy_sig_thread, NULL, sy_signal_thread, NULL)) {
		pthread_sigmask(SIG_UNBLOCK, &sy_sigs, NULL);
		return -1;
	}
	sy_sig_started = 1;
	return 0;
}

void sy_cli_signals_stop(void)
{
	/* woken by one of its own signals, sent to it alone, the thread
	 * sees the flag and ends; joining it frees what it holds (valgrind
	 * would call that lost).  Not pthread_cancel: ASan's thread teardown
	 * trips over a cancelled thread's stack. */
	if (!sy_sig_started)
		return;
	atomic_store(&sy_sig_stopping, 1);
	pthread_kill(sy_sig_thread, sy_sig_wake);
	pthread_join(sy_sig_thread, NULL);
	sy_sig_started = 0;
}
