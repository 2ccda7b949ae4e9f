//! `cargo xtask bench --svg FILE`: the table as a chart. Per row, presa, rmcp and the baseline
//! side by side, each as its median throughput over the row's reference (the baseline, or rmcp
//! where the row has none), with the range of its runs as a whisker.

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

/// The rows that compare presa with another program, relative to their reference (a row that
/// only repeats another's sides for a second target is left out).
fn groups(rows: &[Row]) -> Vec<Group> {
    rows.iter()
        .filter(|row| row.charted)
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

/// Writes the chart of `rows` to `file`: one group of horizontal bars per row, top to bottom
/// in the table's order.
pub(super) fn write(rows: &[Row], file: &Path) -> Result<(), String> {
    let groups = groups(rows);
    if groups.is_empty() {
        return Err("no row compares sides: nothing to draw".to_owned());
    }
    let error = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let right = groups
        .iter()
        .flat_map(|(_, sides)| sides.iter().flatten().map(|s| s.2))
        .fold(1.0_f64, f64::max)
        * 1.05;
    let n = groups.len();
    let height = (90 + 36 * n) as u32;
    let root = SVGBackend::new(file, (960, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(&e))?;
    // the first row at the top: row i is drawn at y = n - 1 - i
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "cargo xtask bench: throughput over the row's baseline (rmcp where it has none)",
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(130)
        .build_cartesian_2d(0.0..right, -0.5..n as f64 - 0.5)
        .map_err(|e| error(&e))?;
    let names: Vec<String> = groups.iter().map(|(name, _)| name.clone()).collect();
    let label = |y: &f64| {
        let i = y.round();
        let row = n as f64 - 1.0 - i;
        if (y - i).abs() < 1e-6 && (0.0..n as f64).contains(&row) {
            names.get(row as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&label)
        .y_label_style(("sans-serif", 13))
        .x_desc("÷ reference (1.0 = the baseline)")
        .draw()
        .map_err(|e| error(&e))?;
    let thickness = 0.8 / SIDES.len() as f64;
    for (k, (side_name, colour)) in SIDES.iter().enumerate() {
        let bars: Vec<(f64, (f64, f64, f64))> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, (_, sides))| sides[k].map(|s| ((n - 1 - i) as f64, s)))
            .collect();
        // presa on top of its group, then rmcp, then the baseline
        let top = |y: f64| y + 0.4 - thickness * k as f64;
        chart
            .draw_series(bars.iter().map(|&(y, (median, _, _))| {
                Rectangle::new(
                    [(0.0, top(y) - 0.01), (median, top(y) - thickness + 0.01)],
                    colour.filled(),
                )
            }))
            .map_err(|e| error(&e))?
            .label(*side_name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        chart
            .draw_series(bars.iter().map(|&(y, (_, low, high))| {
                let middle = top(y) - thickness / 2.0;
                PathElement::new(vec![(low, middle), (high, middle)], BLACK.stroke_width(2))
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
    use crate::bench::table::Target;

    #[test]
    fn the_chart_has_a_group_per_compared_row_and_a_legend() {
        let rows = [
            Row::new(
                "http-64",
                Side::of_throughputs(&[80.0, 81.0, 82.0]),
                Target::Ratio(0.8),
            )
            .baseline(Side::of_throughputs(&[100.0, 102.0, 104.0]))
            .rmcp(Some(Side::of_throughputs(&[20.0, 20.5, 21.0]))),
            Row::new(
                "in-process",
                Side::of_throughputs(&[1.0]),
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
