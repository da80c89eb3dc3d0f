//! Progress of a long call, as MCP progress notifications: reported from any thread (the
//! folder is indexed on a blocking thread), delivered in order before the call's answer; and
//! the client's cancellation of the call, which the work asks after as it goes.

use tokio::sync::mpsc;

/// One progress notification: a count that only grows, an optional total, and a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: String,
}

/// Where a call reports its progress; a no-op when the client sent no progress token.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    sender: Option<mpsc::UnboundedSender<Step>>,
    /// The last progress reported, shared by clones so that the count never goes back.
    last: std::sync::Arc<std::sync::Mutex<f64>>,
    /// Set once the client cancels the call, shared by clones.
    cancelled: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Wakes whoever waits for the cancellation ([`Progress::cancellation`]).
    woken: std::sync::Arc<tokio::sync::Notify>,
    /// Where the reports of work no call started go, to the calls waiting for it.
    relay: Option<Relay>,
}

impl Progress {
    /// A reporter that drops everything.
    pub fn none() -> Progress {
        Progress::default()
    }

    /// A reporter, and the receiving end whose steps the server turns into notifications.
    pub fn channel() -> (Progress, mpsc::UnboundedReceiver<Step>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        (Progress { sender: Some(sender), ..Progress::default() }, receiver)
    }

    /// Marks the call cancelled: work that asks [`Progress::is_cancelled`] stops.
    pub fn cancel(&self) {
        self.cancelled.store(true, std::sync::atomic::Ordering::Relaxed);
        self.woken.notify_waiters();
    }

    /// Finishes once the client cancels the call (never, if it does not): a call forwarded to
    /// the plugin waits for it beside the plugin's answer, to tell the plugin to stop.
    pub async fn cancellation(&self) {
        loop {
            let woken = self.woken.notified();
            if self.is_cancelled() {
                return;
            }
            woken.await;
        }
    }

    /// A handle that can only cancel: it holds no sender, so it keeps no notification stream
    /// open after the call.
    pub fn canceller(&self) -> Progress {
        Progress { sender: None, last: self.last.clone(), cancelled: self.cancelled.clone(), woken: self.woken.clone(), relay: None }
    }

    /// Whether the client cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn is_wanted(&self) -> bool {
        self.sender.is_some()
    }

    /// Reports `done` of `total` with a sentence. `done` is raised past the last report when
    /// it would not grow, as the protocol requires.
    pub fn report(&self, done: f64, total: Option<f64>, message: impl Into<String>) {
        let Some(sender) = &self.sender else {
            if let Some(relay) = &self.relay {
                relay.forward(done, total, message.into());
            }
            return;
        };
        let progress = {
            let Ok(mut last) = self.last.lock() else { return };
            let progress = if done > *last { done } else { *last + 1.0 };
            *last = progress;
            progress
        };
        let total = total.filter(|total| *total >= progress);
        let _ = sender.send(Step { progress, total, message: message.into() });
    }

    /// Reports the next step of a call whose size is unknown.
    pub fn step(&self, message: impl Into<String>) {
        self.report(0.0, None, message);
    }
}

/// The progress of work no call started (the index a server begins at its start), handed to
/// each call that waits for it: the last step at once when it begins to wait, then each step.
#[derive(Debug, Clone, Default)]
pub struct Relay {
    state: std::sync::Arc<std::sync::Mutex<RelayState>>,
}

#[derive(Debug, Default)]
struct RelayState {
    /// The last step, while the work runs.
    last: Option<(f64, Option<f64>, String)>,
    waiting: Vec<(u64, Progress)>,
    next: u64,
}

impl Relay {
    /// A reporter whose steps go to the calls waiting.
    pub fn progress(&self) -> Progress {
        Progress { relay: Some(self.clone()), ..Progress::default() }
    }

    fn forward(&self, done: f64, total: Option<f64>, message: String) {
        let Ok(mut state) = self.state.lock() else { return };
        for (_, progress) in &state.waiting {
            progress.report(done, total, message.clone());
        }
        state.last = Some((done, total, message));
    }

    /// The work is done: a call that waits from now on hears nothing of it.
    pub fn finish(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.last = None;
        }
    }

    /// `progress` hears the work's steps until the guard is dropped.
    pub fn join(&self, progress: &Progress) -> Joined {
        let Ok(mut state) = self.state.lock() else { return Joined { relay: None, id: 0 } };
        if let Some((done, total, message)) = &state.last {
            progress.report(*done, *total, message.clone());
        }
        let id = state.next;
        state.next += 1;
        state.waiting.push((id, progress.clone()));
        Joined { relay: Some(self.clone()), id }
    }
}

/// A call's place among those a [`Relay`] reports to; it leaves when dropped.
#[derive(Debug)]
pub struct Joined {
    relay: Option<Relay>,
    id: u64,
}

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(mut state) = self.relay.as_ref().and_then(|relay| relay.state.lock().ok()) {
            state.waiting.retain(|(id, _)| *id != self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_only_grows_and_a_total_below_it_is_dropped() {
        let (progress, mut steps) = Progress::channel();
        progress.report(5.0, Some(10.0), "five");
        progress.clone().report(3.0, Some(10.0), "three");
        progress.step("next");
        drop(progress);
        let mut seen = Vec::new();
        while let Ok(step) = steps.try_recv() {
            seen.push((step.progress, step.total));
        }
        assert_eq!(seen, [(5.0, Some(10.0)), (6.0, Some(10.0)), (7.0, None)]);
    }
}
