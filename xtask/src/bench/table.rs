//! The rows of the table, their targets and verdicts, and the table itself.

use super::measure::{Run, Side};

/// What a row must show.
#[derive(Debug, Clone)]
pub(super) enum Target {
    /// presa's throughput at least this share of the baseline's.
    Ratio(f64),
    /// presa's throughput at least this many times rmcp's.
    PeerRatio(f64),
    /// presa's throughput at least this, in the unit named.
    Throughput(f64, &'static str),
    /// A measured amount at most a limit: `got` and `limit` in `unit` (memory: no spread).
    AtMost {
        got: f64,
        limit: f64,
        unit: &'static str,
    },
    /// A condition measured some other way, described, and whether it holds.
    Check { text: String, met: bool },
    /// Nothing to meet: the figures are reported, with a word on what they are.
    Report(String),
}

/// What the driver says of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The target is met by more than the spread of the runs.
    Met,
    /// The target is missed by more than the spread of the runs.
    Missed,
    /// Met or missed by less than the spread: the noise decides, so the driver does not.
    WithinNoise { above: bool },
    /// A row with nothing to meet.
    Reported,
}

impl Verdict {
    /// `value` against `target` (more is better) when the runs behind it moved by `noise` (a
    /// share of their median; `None` when a side ran once, so how much it moves is unknown).
    fn at_least(value: f64, target: f64, noise: Option<f64>) -> Verdict {
        let Some(noise) = noise else {
            return Verdict::WithinNoise {
                above: value >= target,
            };
        };
        let margin = (value / target - 1.0).abs();
        let above = value >= target;
        if margin <= noise {
            Verdict::WithinNoise { above }
        } else if above {
            Verdict::Met
        } else {
            Verdict::Missed
        }
    }

    fn word(self) -> &'static str {
        match self {
            Verdict::Met => "yes",
            Verdict::Missed => "NO",
            Verdict::WithinNoise { above: true } => "above, within noise",
            Verdict::WithinNoise { above: false } => "below, within noise",
            Verdict::Reported => "-",
        }
    }
}

/// A row of the table.
#[derive(Debug)]
pub(super) struct Row {
    pub(super) name: String,
    pub(super) presa: Side,
    pub(super) baseline: Option<Side>,
    pub(super) rmcp: Option<Side>,
    pub(super) target: Target,
    /// Whether the chart shows the row: not when it repeats another row's sides for a second
    /// target, or compares presa with itself.
    pub(super) charted: bool,
}

impl Row {
    /// A row of presa against `baseline` (and rmcp, when it ran).
    pub(super) fn new(name: impl Into<String>, presa: Side, target: Target) -> Row {
        Row {
            name: name.into(),
            presa,
            baseline: None,
            rmcp: None,
            target,
            charted: true,
        }
    }

    /// Leaves the row out of the chart.
    pub(super) fn not_charted(mut self) -> Row {
        self.charted = false;
        self
    }

    pub(super) fn baseline(mut self, baseline: Side) -> Row {
        self.baseline = Some(baseline);
        self
    }

    pub(super) fn rmcp(mut self, rmcp: Option<Side>) -> Row {
        self.rmcp = rmcp;
        self
    }

    /// presa's throughput over the baseline's.
    pub(super) fn ratio(&self) -> Option<f64> {
        let base = self.baseline.as_ref()?;
        Some(self.presa.median.throughput / base.median.throughput)
    }

    /// presa's throughput over rmcp's.
    pub(super) fn peer_ratio(&self) -> Option<f64> {
        let rmcp = self.rmcp.as_ref()?;
        Some(self.presa.median.throughput / rmcp.median.throughput)
    }

    /// The verdict on the row's target. A ratio's noise is the sum of its two sides' spreads
    /// (each may be off by its own); a side that ran once has no known spread.
    pub(super) fn verdict(&self) -> Verdict {
        let spread = |side: &Side| (side.runs >= 2).then(|| side.spread());
        let sum = |other: &Side| Some(spread(&self.presa)? + spread(other)?);
        match &self.target {
            Target::Ratio(target) => match (self.ratio(), &self.baseline) {
                (Some(ratio), Some(baseline)) => Verdict::at_least(ratio, *target, sum(baseline)),
                _ => Verdict::Missed,
            },
            Target::PeerRatio(target) => match (self.peer_ratio(), &self.rmcp) {
                (Some(ratio), Some(rmcp)) => Verdict::at_least(ratio, *target, sum(rmcp)),
                _ => Verdict::Missed,
            },
            Target::Throughput(target, _) => {
                let noise = spread(&self.presa);
                Verdict::at_least(self.presa.median.throughput, *target, noise)
            }
            Target::AtMost { got, limit, .. } => {
                if got <= limit {
                    Verdict::Met
                } else {
                    Verdict::Missed
                }
            }
            Target::Check { met, .. } => {
                if *met {
                    Verdict::Met
                } else {
                    Verdict::Missed
                }
            }
            Target::Report(_) => Verdict::Reported,
        }
    }

    fn target_text(&self) -> String {
        match &self.target {
            Target::Ratio(target) => format!("≥ {target:.2}× baseline"),
            Target::PeerRatio(target) => format!("≥ {target:.1}× rmcp"),
            Target::Throughput(target, unit) => format!("≥ {target:.0} {unit}"),
            Target::AtMost { got, limit, unit } => format!("≤ {limit} {unit} (got {got:.2})"),
            Target::Check { text, .. } | Target::Report(text) => text.clone(),
        }
    }
}

/// A median throughput with the spread of its runs: (fastest − slowest) ÷ median.
fn figure(side: &Side) -> String {
    format!(
        "{:.0} ({:.0}%)",
        side.median.throughput,
        side.spread() * 100.0
    )
}

fn mib(run: &Run) -> String {
    run.peak_rss_kib
        .map_or("-".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0))
}

fn cpu(run: &Run) -> String {
    run.cpu_us.map_or("-".to_owned(), |c| format!("{c:.1}"))
}

/// `presa (baseline, rmcp)` of one figure; `-` for a side that did not run, and only presa's
/// when no other side did.
fn sides(row: &Row, show: impl Fn(&Run) -> String) -> String {
    let (baseline, rmcp) = (row.baseline.as_ref(), row.rmcp.as_ref());
    let other = |side: Option<&Side>| side.map_or_else(|| "-".to_owned(), |s| show(&s.median));
    match (baseline, rmcp) {
        (None, None) => show(&row.presa.median),
        (Some(_), None) => format!("{} ({})", show(&row.presa.median), other(baseline)),
        _ => format!(
            "{} ({}, {})",
            show(&row.presa.median),
            other(baseline),
            other(rmcp)
        ),
    }
}

/// Prints `rows` as a Markdown table.
pub(super) fn print(rows: &[Row]) {
    println!();
    println!(
        "| row | presa /s | baseline /s | presa ÷ baseline | rmcp /s | presa ÷ rmcp | target | met | \
         p50/p99 µs presa (baseline, rmcp) | CPU µs/req presa (baseline, rmcp) | peak RSS MiB presa (baseline, rmcp) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---|---|---|---|");
    for row in rows {
        let dash = || "-".to_owned();
        let ratio = |r: Option<f64>| r.map_or_else(dash, |r| format!("{r:.2}×"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            figure(&row.presa),
            row.baseline.as_ref().map_or_else(dash, figure),
            ratio(row.ratio()),
            row.rmcp.as_ref().map_or_else(dash, figure),
            ratio(row.peer_ratio()),
            row.target_text(),
            row.verdict().word(),
            sides(row, |r| format!("{}/{}", r.p50_us, r.p99_us)),
            sides(row, cpu),
            sides(row, mib),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn met_only_beyond_the_spread_of_the_runs() {
        let steady = Row::new(
            "r",
            Side::of_throughputs(&[85.0, 85.0, 85.0]),
            Target::Ratio(0.80),
        )
        .baseline(Side::of_throughputs(&[100.0, 100.0, 100.0]));
        assert_eq!(steady.verdict(), Verdict::Met);
        // the same medians, but the baseline moved by 20%: 0.85 is within 0.80's noise
        let noisy = Row::new(
            "r",
            Side::of_throughputs(&[85.0, 85.0, 85.0]),
            Target::Ratio(0.80),
        )
        .baseline(Side::of_throughputs(&[90.0, 100.0, 110.0]));
        assert_eq!(noisy.verdict(), Verdict::WithinNoise { above: true });
        // each side moved by 4%: 0.85 is 6% above 0.80, within their 8%
        let both = Row::new(
            "r",
            Side::of_throughputs(&[83.0, 85.0, 86.4]),
            Target::Ratio(0.80),
        )
        .baseline(Side::of_throughputs(&[98.0, 100.0, 102.0]));
        assert_eq!(both.verdict(), Verdict::WithinNoise { above: true });
        // one run a side: how much they move is unknown
        let once = Row::new("r", Side::of_throughputs(&[85.0]), Target::Ratio(0.80))
            .baseline(Side::of_throughputs(&[100.0]));
        assert_eq!(once.verdict(), Verdict::WithinNoise { above: true });
        let missed = Row::new(
            "r",
            Side::of_throughputs(&[50.0, 50.0, 50.0]),
            Target::Ratio(0.80),
        )
        .baseline(Side::of_throughputs(&[90.0, 100.0, 110.0]));
        assert_eq!(missed.verdict(), Verdict::Missed);
    }

    #[test]
    fn a_peer_ratio_without_rmcp_is_not_met() {
        let row = Row::new(
            "r",
            Side::of_throughputs(&[1.0, 1.0]),
            Target::PeerRatio(4.0),
        );
        assert_eq!(row.verdict(), Verdict::Missed);
        let row = row.rmcp(Some(Side::of_throughputs(&[0.2, 0.2])));
        assert_eq!(row.verdict(), Verdict::Met);
    }

    #[test]
    fn a_missing_side_reads_as_a_dash() {
        let row = Row::new("r", Side::of_throughputs(&[1.0]), Target::PeerRatio(4.0))
            .rmcp(Some(Side::of_throughputs(&[2.0])));
        assert_eq!(
            sides(&row, |run| format!("{:.0}", run.throughput)),
            "1 (-, 2)"
        );
    }
}
