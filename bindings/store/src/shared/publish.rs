//! What this process writes to the store: a deploy's whole registry ([`SharedRegistry::publish`])
//! and a change made from the store's newest version ([`SharedRegistry::change`]), retried on
//! top of whatever another process published first.

use tool_intent::error::StoreFault;
use tool_intent::{Error, Registry, Result};

use super::SharedRegistry;
use crate::{split, Expect, Publication, VersionRow};

impl SharedRegistry {
    /// Publishes `registry` (a deploy's) as the newest version, on top of whatever the store
    /// holds, and plans on it from the next turn boundary (with this process's model ranker,
    /// as every version it plans on).
    pub fn publish(&mut self, registry: &Registry) -> Result<VersionRow> {
        let row = match self.store.publish(&split(registry), Expect::Anything)? {
            Publication::Published(row) | Publication::Unchanged(row) => row,
            Publication::Conflict { .. } => {
                return Err(Error::internal(
                    "the store reported a conflict for a publication that expected none",
                ))
            }
        };
        if row.sequence > self.sequence {
            let version = self.with_ranker(registry.clone());
            self.plan_on(&version, &row);
        }
        Ok(row)
    }

    /// Makes `change` from the store's newest version and publishes the result; when another
    /// process publishes in between, the change is made again from that version (so no
    /// change is lost). Returns the version published (or the newest, if the change changed
    /// nothing).
    pub fn change(
        &mut self,
        mut change: impl FnMut(&Registry) -> Result<Registry>,
    ) -> Result<VersionRow> {
        // Bounded: each retry means another process published, which cannot go on forever in
        // a fleet of finite processes; a store that keeps reporting conflicts is broken.
        for _ in 0..64 {
            if let Some(newest) = self.store.newest()? {
                if newest.sequence > self.sequence {
                    self.adopt(&newest)?;
                }
            }
            let next = change(&self.current)?;
            match self
                .store
                .publish(&split(&next), Expect::Newest(Some(self.sequence)))?
            {
                Publication::Published(row) => {
                    let next = self.with_ranker(next);
                    self.plan_on(&next, &row);
                    return Ok(row);
                }
                Publication::Unchanged(row) => return Ok(row),
                Publication::Conflict { .. } => continue,
            }
        }
        Err(Error::Store {
            fault: StoreFault::Unavailable,
            message: "the registry store reported 64 conflicting publications in a row".into(),
        })
    }
}
