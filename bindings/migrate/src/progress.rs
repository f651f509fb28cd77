//! A run's progress: rows counted and told to the caller's `progress`, which may stop the run.

use tool_intent::error::Result;

use crate::options::Progress;

/// Rows done out of a total counted at the start, told to `progress` (if any) every 1% of them
/// and at the last (a total that grew while the run went on is raised to what was done).
pub(crate) struct Done<'a> {
    done: u64,
    total: u64,
    step: u64,
    progress: Option<Progress<'a>>,
}

impl<'a> Done<'a> {
    pub(crate) fn new(total: u64, progress: Option<Progress<'a>>) -> Self {
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
        if let Some(progress) = self.progress.as_mut() {
            if self.done.is_multiple_of(self.step) || self.done == self.total {
                progress(self.done, self.total.max(self.done))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(total: u64, rows: u64) -> Vec<(u64, u64)> {
        let mut calls = Vec::new();
        let mut progress = |done, total| {
            calls.push((done, total));
            Ok(())
        };
        let mut done = Done::new(total, Some(&mut progress));
        for _ in 0..rows {
            done.row().unwrap();
        }
        calls
    }

    #[test]
    fn every_percent_and_the_last_row_are_told() {
        let calls = told(250, 250);
        assert_eq!(calls.len(), 125);
        assert_eq!((calls[0], calls[124]), ((2, 250), (250, 250)));
        // Fewer than 100 rows: each one.
        assert_eq!(told(3, 3), [(1, 3), (2, 3), (3, 3)]);
        // Rows added while the run went on: the total is never below what was done.
        assert_eq!(told(1, 3), [(1, 1), (2, 2), (3, 3)]);
    }

    #[test]
    fn an_error_from_progress_is_the_rows_error() {
        let mut progress = |done: u64, _| match done {
            2 => Err(tool_intent::Error::argument("progress", "stop")),
            _ => Ok(()),
        };
        let mut done = Done::new(10, Some(&mut progress));
        assert!(done.row().is_ok());
        assert!(done.row().is_err());
    }
}
