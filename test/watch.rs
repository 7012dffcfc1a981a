//! Waiting for a tool's child process and telling a hang from a loaded machine.
//!
//! A wall-clock limit judges the machine as much as the tool: a campaign shares two cores with
//! builds and tests (`nice -n 19`), and a run that takes 0.4 s alone can pass 60 s of wall time
//! there (seed 14141's unreproducible lavapipe "timeout"). So a run is judged by the CPU time its
//! process has used (user + system, every thread, and children it waited for), read from
//! `/proc/PID/stat` while it runs:
//! - [`Ended::Hang`] when it used more than the CPU limit (it computes without end), or when it
//!   gained no CPU time at all during a whole window of `limit` seconds of wall time (it is blocked:
//!   a deadlock uses no CPU, but the scheduler gives even a `nice -n 19` process on a busy machine
//!   some share of a minute);
//! - [`Ended::Inconclusive`] when it reaches the wall-clock backstop ([`WALL_FACTOR`] times the
//!   limit) under its CPU limit while still gaining CPU time: slow because the machine is loaded,
//!   which says nothing about the tool; counted apart, never a failure.

use std::{
    process::{Child, ExitStatus},
    time::{Duration, Instant},
};

/// The wall-clock backstop, in multiples of the CPU limit.
pub const WALL_FACTOR: u32 = 10;

/// Clock ticks a second in `/proc/PID/stat` (`USER_HZ`): 100 on every Linux architecture's ABI,
/// whatever the kernel's own tick rate.
const TICKS_PER_SECOND: u64 = 100;

/// How a supervised child ended.
#[derive(Debug)]
pub enum Ended {
    /// It exited (or was killed by a signal) on its own.
    Exited(ExitStatus),
    /// It was killed as a hang: why, in words.
    Hang(String),
    /// It was killed by the wall-clock backstop while still computing under its CPU limit.
    Inconclusive(String),
}

/// Returns the CPU time `pid` has used (its threads and the children it waited for), if it exists.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields count from the last ')'. After it:
    // state, ppid, ..., utime (14th field), stime, cutime, cstime.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .map(|field| field.parse::<u64>().unwrap_or(0))
        .sum();
    Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

/// Waits for `child`, killing it as a hang past `limit` of CPU time or `limit` of wall time without
/// any CPU time gained, and as inconclusive at [`WALL_FACTOR`] times `limit` of wall time.
pub fn wait(child: &mut Child, limit: Duration) -> Ended {
    let started = Instant::now();
    let (mut used, mut progressed) = (Duration::ZERO, started);
    let mut polls: u32 = 0;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Ended::Exited(status);
        }
        polls += 1;
        // /proc is read every 100 ms; exits are noticed within 5 ms.
        if polls % 20 == 0 {
            let now = Instant::now();
            if let Some(time) = cpu_time(child.id())
                && time > used
            {
                (used, progressed) = (time, now);
            }
            let verdict = if used > limit {
                Some(Ended::Hang(format!("more than {} s of CPU time", limit.as_secs())))
            } else if now - progressed > limit {
                Some(Ended::Hang(format!(
                    "blocked: no CPU time for {} s (after {:.1} s of it)",
                    limit.as_secs(),
                    used.as_secs_f64()
                )))
            } else if now - started > limit * WALL_FACTOR {
                Some(Ended::Inconclusive(format!(
                    "{} s of wall time, only {:.1} s of CPU time: the machine is loaded",
                    (now - started).as_secs(),
                    used.as_secs_f64()
                )))
            } else {
                None
            };
            if let Some(verdict) = verdict {
                let _ = child.kill();
                let _ = child.wait();
                return verdict;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_spinning_child_is_a_hang_by_cpu_time() {
        let mut child = Command::new("sh").args(["-c", "while :; do :; done"]).spawn().unwrap();
        let ended = wait(&mut child, Duration::from_secs(1));
        assert!(
            matches!(&ended, Ended::Hang(why) if why.contains("CPU time")),
            "{ended:?}"
        );
    }

    #[test]
    fn a_blocked_child_is_a_hang_without_cpu_time() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let ended = wait(&mut child, Duration::from_secs(1));
        assert!(
            matches!(&ended, Ended::Hang(why) if why.starts_with("blocked")),
            "{ended:?}"
        );
    }

    /// A child that computes a little at a time (about 7% of a core, as a `nice -n 19` run might
    /// get on a busy machine) reaches the wall backstop under its CPU limit.
    #[test]
    fn a_slow_but_computing_child_is_inconclusive() {
        let mut child = Command::new("sh")
            .args([
                "-c",
                "while :; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; sleep 0.1; done",
            ])
            .spawn()
            .unwrap();
        let ended = wait(&mut child, Duration::from_secs(2));
        assert!(matches!(ended, Ended::Inconclusive(_)), "{ended:?}");
    }

    #[test]
    fn a_finishing_child_exits() {
        let mut child = Command::new("true").spawn().unwrap();
        assert!(matches!(wait(&mut child, Duration::from_secs(5)), Ended::Exited(status) if status.success()));
    }

    #[test]
    fn cpu_time_is_read_from_proc() {
        assert!(cpu_time(std::process::id()).is_some());
        assert!(cpu_time(u32::MAX).is_none());
    }
}
