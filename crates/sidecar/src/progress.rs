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
        Progress { sender: None, last: self.last.clone(), cancelled: self.cancelled.clone(), woken: self.woken.clone() }
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
        let Some(sender) = &self.sender else { return };
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
