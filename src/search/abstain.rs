//! The answer of a search that may abstain (`SearchCall::abstain`) and found no tool that fits
//! well enough: nothing loaded, the nearest tools named, and a way on for the model. The rule
//! that decides it is in `mod.rs` (`search`); the fits and thresholds are the rankers'
//! (`Ranker::rank_with_fit`, `Ranker::abstention_threshold`; docs/search.md, "Abstention").

use crate::registry::Registry;

/// How many of the best-ranked tools an abstaining search names in its text.
pub const NEAREST_NAMED: usize = 3;

/// The text of a search that abstains (the search hands it back with nothing loaded and a
/// `search_abstained` warning): the nearest tools named, and a way on for the model (ask,
/// rephrase, or load one by name).
pub(super) fn answer(registry: &Registry, ranked: &[usize], fit: f64, threshold: f64) -> String {
    let nearest: Vec<String> = ranked
        .iter()
        .take(NEAREST_NAMED)
        .filter_map(|&i| registry.tool(i).map(|t| t.name.clone()))
        .collect();
    format!(
        "No deferred tool fits this request well enough to load (the best match scores {}, under the {} this search asks for). Nearest: {}. Ask the user what they need, search again with other words, or load one of these with select:<name>.",
        hundredths(fit),
        hundredths(threshold),
        crate::text::join(&nearest, ", ")
    )
}

/// A score in [0, 1] as `0.37` (rounded down; integer formatting only, which keeps the
/// float printer out of the wasm module). The 1e-9 keeps a threshold written `0.29`, which
/// is 28.999… hundredths in binary, printed as written.
fn hundredths(score: f64) -> String {
    let h = (score * 100.0 + 1e-9).clamp(0.0, 100.0) as u32;
    format!("{}.{:02}", h / 100, h % 100)
}

#[cfg(test)]
mod tests {
    use super::super::tests::deferred_by_default;
    use super::super::*;
    use super::*;

    /// A ranker of fixed fit and threshold (registry order), to test the abstention rule alone.
    #[cfg(feature = "abstain")]
    struct Fixed {
        fit: Option<f64>,
        threshold: Option<f64>,
    }

    #[cfg(feature = "abstain")]
    impl Ranker for Fixed {
        fn rank_with_fit(&self, _: &Registry, request: &RankRequest<'_>) -> Ranking {
            let best_first = request.candidates.iter().copied().take(request.limit);
            Ranking {
                best_first: best_first.collect(),
                fit: self.fit,
            }
        }
        fn abstention_threshold(&self) -> Option<f64> {
            self.threshold
        }
    }

    #[cfg(feature = "abstain")]
    #[test]
    fn a_search_abstains_below_the_threshold_only_when_nothing_is_named() {
        let r = Registry::embedded();
        let e = deferred_by_default(&r);
        let low = Fixed {
            fit: Some(0.1),
            threshold: Some(0.25),
        };
        let call = SearchCall::new("order a pizza")
            .with_ranker(&low)
            .with_abstain(true);
        let res = run(&r, &e, &call, &|_| false, &|_| false).unwrap();
        assert!(res.hits.is_empty(), "an abstaining search loads nothing");
        assert_eq!(res.warnings.len(), 1);
        assert_eq!(res.warnings[0].code, WarningCode::SearchAbstained);
        assert!(
            res.text.starts_with("No deferred tool fits this request")
                && res.text.contains("scores 0.10, under the 0.25"),
            "{}",
            res.text
        );
        // The nearest three are named, best first.
        let ranked = low.rank(&r, "", &e.iter().collect::<Vec<_>>(), 3);
        let names: Vec<&str> = ranked
            .iter()
            .map(|&i| r.tool(i).unwrap().name.as_str())
            .collect();
        assert!(
            res.text
                .contains(&format!("Nearest: {}.", names.join(", "))),
            "{}",
            res.text
        );
        // Not below the threshold, not asked to, a named tool, select: — the normal answer.
        let high = Fixed {
            fit: Some(0.25),
            threshold: Some(0.25),
        };
        for (ranker, query, abstain) in [
            (&high, "order a pizza", true),
            (&low, "order a pizza", false),
            (&low, "enter plan mode", true),
            (&low, "select:enter_plan_mode", true),
        ] {
            let call = SearchCall::new(query)
                .with_ranker(ranker)
                .with_abstain(abstain);
            let res = run(&r, &e, &call, &|_| false, &|_| false).unwrap();
            assert!(!res.hits.is_empty(), "{query}");
            assert!(res.warnings.is_empty(), "{query}");
        }
    }

    #[cfg(feature = "abstain")]
    #[test]
    fn abstaining_needs_a_threshold_and_a_fit() {
        let r = Registry::embedded();
        let e = deferred_by_default(&r);
        let no_threshold = Fixed {
            fit: Some(0.1),
            threshold: None,
        };
        let no_fit = Fixed {
            fit: None,
            threshold: Some(0.25),
        };
        for ranker in [&no_threshold, &no_fit] {
            let call = SearchCall::new("order a pizza")
                .with_ranker(ranker)
                .with_abstain(true);
            let err = run(&r, &e, &call, &|_| false, &|_| false).unwrap_err();
            assert_eq!(err.code(), "invalid_argument");
            assert!(err.to_string().contains("abstain"), "{err}");
        }
    }

    #[cfg(not(feature = "abstain"))]
    #[test]
    fn a_build_without_abstention_refuses_it_by_name() {
        let r = Registry::embedded();
        let e = deferred_by_default(&r);
        let call = SearchCall::new("plan mode").with_abstain(true);
        let err = run(&r, &e, &call, &|_| false, &|_| false).unwrap_err();
        assert!(err.to_string().contains("not in this build"), "{err}");
    }

    #[test]
    fn scores_print_in_hundredths_rounded_down() {
        assert_eq!(hundredths(0.0), "0.00");
        assert_eq!(hundredths(0.079), "0.07");
        assert_eq!(hundredths(0.06), "0.06");
        assert_eq!(hundredths(0.29), "0.29");
        assert_eq!(hundredths(0.5), "0.50");
        assert_eq!(hundredths(1.7), "1.00");
        assert_eq!(hundredths(-0.2), "0.00");
        assert_eq!(hundredths(f64::NAN), "0.00");
    }
}
