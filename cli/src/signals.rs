//! Stopping cleanly: the signals that ask `toolcap` to stop, heard on a
//! thread of their own, and stopping a child's whole process group.

use std::process::Child;
use std::thread;
use std::time::{Duration, Instant};

use crate::log;

/// How long a child has to end after it was asked to stop (its process
/// group got the signal) before its group is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// A signal that asks `toolcap` to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
    Hangup,
}

impl Signal {
    /// The exit status for it, as shells report a command it stopped.
    pub fn exit_code(self) -> u8 {
        128 + self.number() as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }

    fn number(self) -> i32 {
        match self {
            Signal::Interrupt => 2,
            Signal::Terminate => 15,
            Signal::Hangup => 1,
        }
    }

    #[cfg(unix)]
    fn to_rustix(self) -> rustix::process::Signal {
        match self {
            Signal::Interrupt => rustix::process::Signal::INT,
            Signal::Terminate => rustix::process::Signal::TERM,
            Signal::Hangup => rustix::process::Signal::HUP,
        }
    }
}

/// From now on, SIGINT, SIGTERM and SIGHUP no longer end the process: each
/// calls `heard` (on a thread of its own) instead. Returns once the
/// handlers are in place.
pub fn watch(heard: impl Fn(Signal) + Send + 'static) {
    let (ready, installed) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                log::line(&format!("cannot watch for signals: {e}"));
                let _ = ready.send(());
                return;
            }
        };
        runtime.block_on(async move {
            #[cfg(unix)]
            {
                use tokio::signal::unix::{SignalKind, signal};
                let streams = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                    signal(SignalKind::hangup()),
                );
                let _ = ready.send(());
                let (Ok(mut int), Ok(mut term), Ok(mut hup)) = streams else {
                    log::line("cannot watch for signals");
                    return;
                };
                loop {
                    let signal = tokio::select! {
                        Some(()) = int.recv() => Signal::Interrupt,
                        Some(()) = term.recv() => Signal::Terminate,
                        Some(()) = hup.recv() => Signal::Hangup,
                        else => return,
                    };
                    heard(signal);
                }
            }
            #[cfg(not(unix))]
            {
                let _ = ready.send(());
                while tokio::signal::ctrl_c().await.is_ok() {
                    heard(Signal::Interrupt);
                }
            }
        });
    });
    let _ = installed.recv();
}

/// Sends `signal` to the process group `child` leads (it was started
/// with a process group of its own). A group already gone is no error.
#[cfg(unix)]
pub fn signal_group(child: &Child, signal: Signal) {
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(child),
        signal.to_rustix(),
    );
}

/// Kills the process group `child` leads.
#[cfg(unix)]
pub fn kill_group(child: &Child) {
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(child),
        rustix::process::Signal::KILL,
    );
}

/// Kills the process group led by the process `pid`.
#[cfg(unix)]
pub fn kill_group_of(pid: u32) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
pub fn kill_group_of(pid: u32) {
    let _ = std::process::Command::new("taskkill")
        .args(["/F", "/T", "/PID", &pid.to_string()])
        .status();
}

#[cfg(not(unix))]
pub fn signal_group(child: &Child, _signal: Signal) {
    kill_group(child);
}

#[cfg(not(unix))]
pub fn kill_group(child: &Child) {
    // No process groups here: the child's tree, by its id.
    kill_group_of(child.id());
}

/// Starts `command` as the leader of a process group of its own, so that
/// it and everything it starts can be stopped together.
pub fn own_group(command: &mut std::process::Command) -> &mut std::process::Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        command.process_group(0);
    }
    command
}

/// Stops `child`'s process group: `signal` first, then, if the child has
/// not ended within [`STOP_GRACE`], SIGKILL. Returns once the child has
/// ended.
pub fn stop_group(child: &mut Child, signal: Signal) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        // The leader is gone; what it left in its group goes too.
        kill_group(child);
        return;
    }
    signal_group(child, signal);
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            kill_group(child);
            return;
        }
        thread::sleep(Duration::from_millis(20));
    }
    kill_group(child);
    let _ = child.wait();
}
