//! A run's progress: rows counted and told to the caller's `progress`, which may stop the run.

use tool_intent::error::Result;

/// Rows done out of a total counted at the start, told to `progress` every 1% of them and at
/// the last (a total that grew while the run went on is raised to what was done).
pub(crate) struct Done<'a> {
    done: u64,
    total: u64,
    step: u64,
    progress: &'a mut dyn FnMut(u64, u64) -> Result<()>,
}

impl<'a> Done<'a> {
    pub(crate) fn new(total: u64, progress: &'a mut dyn FnMut(u64, u64) -> Result<()>) -> Self {
        Done {
            done: 0,
            total,
            step: (total / 100).max(1),
            progress,
        }
    }

    /// One more row; an error from `progress` stops the run.
    pub(crate) fn row(&mut self) -> Result<()> {
        self.done += 1;
        if self.done.is_multiple_of(self.step) || self.done == self.total {
            (self.progress)(self.done, self.total.max(self.done))?;
        }
        Ok(())
    }
}
