//! `cargo xtask bench --svg FILE`: the table as a chart. Per row, presa, rmcp and the baseline
//! side by side, each as its median throughput over the row's reference (the baseline, or rmcp
//! where the row has none), with the spread of its runs as a whisker.

use std::path::Path;

use plotters::prelude::*;

use super::measure::Side;
use super::table::Row;

/// The sides drawn, in order, with their colours.
const SIDES: [(&str, RGBColor); 3] = [
    ("presa", RGBColor(0x2b, 0x6c, 0xb0)),
    ("rmcp", RGBColor(0xd9, 0x7b, 0x29)),
    ("baseline", RGBColor(0x8a, 0x8a, 0x8a)),
];

/// One group of bars: a row's name and its sides relative to its reference (median, lowest,
/// highest), presa first, then rmcp and the baseline where they ran.
type Group = (String, [Option<(f64, f64, f64)>; 3]);

/// The rows that compare sides, relative to their reference.
fn groups(rows: &[Row]) -> Vec<Group> {
    rows.iter()
        .filter_map(|row| {
            let reference = row.baseline.as_ref().or(row.rmcp.as_ref())?;
            let unit = reference.median.throughput;
            if unit <= 0.0 {
                return None;
            }
            let relative = |side: &Side| {
                (
                    side.median.throughput / unit,
                    side.range.0 / unit,
                    side.range.1 / unit,
                )
            };
            let sides = [
                Some(relative(&row.presa)),
                row.rmcp.as_ref().map(relative),
                row.baseline.as_ref().map(relative),
            ];
            Some((row.name.clone(), sides))
        })
        .collect()
}

/// Writes the chart of `rows` to `file`.
pub(super) fn write(rows: &[Row], file: &Path) -> Result<(), String> {
    let groups = groups(rows);
    if groups.is_empty() {
        return Err("no row compares sides: nothing to draw".to_owned());
    }
    let error = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let top = groups
        .iter()
        .flat_map(|(_, sides)| sides.iter().flatten().map(|s| s.2))
        .fold(1.0_f64, f64::max)
        * 1.1;
    let width = (120 + 70 * groups.len()).max(640) as u32;
    let root = SVGBackend::new(file, (width, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(&e))?;
    let n = groups.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "cargo xtask bench: throughput over the row's baseline (rmcp where it has none)",
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(110)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..top)
        .map_err(|e| error(&e))?;
    let names: Vec<String> = groups.iter().map(|(name, _)| name.clone()).collect();
    let label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&label)
        .x_label_style(
            ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .y_desc("÷ reference (1.0 = the baseline)")
        .draw()
        .map_err(|e| error(&e))?;
    let width = 0.8 / SIDES.len() as f64;
    for (k, (side_name, colour)) in SIDES.iter().enumerate() {
        let bars: Vec<(f64, (f64, f64, f64))> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, (_, sides))| sides[k].map(|s| (i as f64, s)))
            .collect();
        let left = |x: f64| x - 0.4 + width * k as f64;
        chart
            .draw_series(bars.iter().map(|&(x, (median, _, _))| {
                Rectangle::new(
                    [(left(x) + 0.01, 0.0), (left(x) + width - 0.01, median)],
                    colour.filled(),
                )
            }))
            .map_err(|e| error(&e))?
            .label(*side_name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        chart
            .draw_series(bars.iter().map(|&(x, (_, low, high))| {
                let middle = left(x) + width / 2.0;
                PathElement::new(vec![(middle, low), (middle, high)], BLACK.stroke_width(2))
            }))
            .map_err(|e| error(&e))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| error(&e))?;
    root.present().map_err(|e| error(&e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::bench::measure::Run;
    use crate::bench::table::Target;

    fn side(runs: &[f64]) -> Side {
        let runs: Vec<Run> = runs
            .iter()
            .map(|&throughput| Run {
                throughput,
                ..Run::default()
            })
            .collect();
        Side::of(&runs)
    }

    #[test]
    fn the_chart_has_a_group_per_compared_row_and_a_legend() {
        let rows = [
            Row::new("http-64", side(&[80.0, 81.0, 82.0]), Target::Ratio(0.8))
                .baseline(side(&[100.0, 102.0, 104.0]))
                .rmcp(Some(side(&[20.0, 20.5, 21.0]))),
            Row::new(
                "in-process",
                side(&[1.0]),
                Target::Throughput(1.0, "calls/s"),
            ),
        ];
        let dir = std::env::temp_dir().join(format!("xtask-svg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("chart.svg");
        write(&rows, &file).unwrap();
        let svg = std::fs::read_to_string(&file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(svg.contains("http-64"));
        assert!(
            !svg.contains("in-process"),
            "a row without a baseline or rmcp is not drawn"
        );
        for side in ["presa", "rmcp", "baseline"] {
            assert!(svg.contains(side), "no {side} in the legend");
        }
        let groups = groups(&rows);
        let [presa, rmcp, baseline] = groups[0].1;
        assert!((presa.unwrap().0 - 81.0 / 102.0).abs() < 1e-9);
        assert!((rmcp.unwrap().0 - 20.5 / 102.0).abs() < 1e-9);
        assert_eq!(baseline.unwrap(), (1.0, 100.0 / 102.0, 104.0 / 102.0));
    }
}
