//! SVG line charts for the farm study: a categorical x axis (the paper's
//! inter-arrival means or license ratios, evenly spaced), one line per
//! policy with its 95% confidence interval as error bars, panels side by
//! side, an optional logarithmic y axis. plotters' SVG backend only, as
//! [`crate::studies::plot`].

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One policy's line: per x, the mean and the half-width of its 95%
/// confidence interval.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Line {
    /// Policy name (legend and colour).
    pub(crate) name: String,
    /// `(mean, ci95)` per x position, `None` where there is no value.
    pub(crate) points: Vec<Option<(f64, f64)>>,
}

/// One panel.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Panel {
    /// Title.
    pub(crate) title: String,
    /// X axis description.
    pub(crate) x_label: String,
    /// Y axis description.
    pub(crate) y_label: String,
    /// X labels, evenly spaced.
    pub(crate) xs: Vec<String>,
    /// Lines.
    pub(crate) lines: Vec<Line>,
    /// Logarithmic y axis.
    pub(crate) log_y: bool,
}

/// The colour of a farm policy (others: [`crate::studies::plot::color`]).
#[must_use]
pub(crate) fn color(name: &str, index: usize) -> RGBColor {
    match name {
        "fcfs" => RGBColor(0x33, 0x33, 0x33),
        "bf-fcfs" | "easy" => RGBColor(0x00, 0x72, 0xB2),
        "bf-unmod" => RGBColor(0xE6, 0x9F, 0x00),
        "bf-mod" => RGBColor(0x00, 0x9E, 0x73),
        other => crate::studies::plot::color(other, index),
    }
}

fn font(px: f64) -> FontDesc<'static> {
    ("sans-serif", px * 1.24).into_font()
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing the chart failed: {e:?}")
}

const WIDTH: u32 = 1100;
const HEADER: u32 = 100;
const HEIGHT: u32 = 460;

/// Panels side by side under a title, a subtitle and one legend.
///
/// # Errors
/// A message if drawing fails.
pub(crate) fn chart(title: &str, subtitle: &str, panels: &[Panel]) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEADER + HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        root.draw(&Text::new(
            title.to_owned(),
            (20, 12),
            font(24.0).style(FontStyle::Bold).color(&BLACK),
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            subtitle.to_owned(),
            (20, 44),
            font(16.0).color(&RGBColor(0x40, 0x40, 0x40)),
        ))
        .map_err(err)?;
        let mut x = 20i32;
        if let Some(first) = panels.first() {
            for (i, line) in first.lines.iter().enumerate() {
                let c = color(&line.name, i);
                root.draw(&Rectangle::new([(x, 74), (x + 18, 92)], c.filled()))
                    .map_err(err)?;
                root.draw(&Text::new(
                    line.name.clone(),
                    (x + 24, 75),
                    font(17.0).color(&BLACK),
                ))
                .map_err(err)?;
                x += 24 + 10 * i32::try_from(line.name.len()).unwrap_or(10) + 26;
            }
        }
        let (_, body) = root.split_vertically(HEADER);
        let areas = body.split_evenly((1, panels.len().max(1)));
        for (panel, area) in panels.iter().zip(&areas) {
            draw_panel(&root, area, panel)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw_panel(root: &Area<'_>, area: &Area<'_>, panel: &Panel) -> Result<(), String> {
    let values: Vec<f64> = panel
        .lines
        .iter()
        .flat_map(|l| l.points.iter().flatten())
        .flat_map(|&(m, ci)| [m - ci, m + ci])
        .filter(|v| v.is_finite())
        .collect();
    let hi = values.iter().copied().fold(0.0f64, f64::max);
    let lo = values
        .iter()
        .copied()
        .filter(|&v| v > 0.0)
        .fold(f64::INFINITY, f64::min);
    #[allow(clippy::cast_precision_loss)]
    let n = panel.xs.len().max(1) as f64;
    let caption = font(17.0).style(FontStyle::Bold);
    if panel.log_y {
        let lo = if lo.is_finite() { lo / 1.3 } else { 0.1 };
        let hi = (hi * 1.3).max(lo * 10.0);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, caption)
            .margin(14)
            .x_label_area_size(56)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..(n - 0.5), (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(panel.y_label.as_str())
            .y_label_formatter(&|v| format!("{v}"))
            .axis_desc_style(font(15.0))
            .label_style(font(13.0))
            .draw()
            .map_err(err)?;
        for (i, line) in panel.lines.iter().enumerate() {
            let c = color(&line.name, i);
            let pts = points(line, |m, ci| (m - ci).max(lo));
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, p.1)),
                    c.stroke_width(3),
                ))
                .map_err(err)?;
            chart
                .draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 5, c.filled())))
                .map_err(err)?;
            chart
                .draw_series(
                    pts.iter()
                        .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], c.stroke_width(2))),
                )
                .map_err(err)?;
        }
        let bottom = chart.backend_coord(&(0.0, lo)).1;
        labels(root, &panel.xs, &panel.x_label, |i| {
            #[allow(clippy::cast_precision_loss)]
            let x = chart.backend_coord(&(i as f64, lo)).0;
            (x, bottom)
        })
    } else {
        let hi = (hi * 1.12).max(1e-9);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, caption)
            .margin(14)
            .x_label_area_size(56)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5f64..(n - 0.5), 0.0..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_labels(8)
            .y_desc(panel.y_label.as_str())
            .y_label_formatter(&|v| {
                if hi >= 20.0 {
                    format!("{v:.0}")
                } else {
                    format!("{v:.1}")
                }
            })
            .axis_desc_style(font(15.0))
            .label_style(font(13.0))
            .draw()
            .map_err(err)?;
        for (i, line) in panel.lines.iter().enumerate() {
            let c = color(&line.name, i);
            let pts = points(line, |m, ci| (m - ci).max(0.0));
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, p.1)),
                    c.stroke_width(3),
                ))
                .map_err(err)?;
            chart
                .draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 5, c.filled())))
                .map_err(err)?;
            chart
                .draw_series(
                    pts.iter()
                        .map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], c.stroke_width(2))),
                )
                .map_err(err)?;
        }
        let bottom = chart.backend_coord(&(0.0, 0.0)).1;
        labels(root, &panel.xs, &panel.x_label, |i| {
            #[allow(clippy::cast_precision_loss)]
            let x = chart.backend_coord(&(i as f64, 0.0)).0;
            (x, bottom)
        })
    }
}

/// `(x, mean, low, high)` of a line's points (x = index), the low end
/// through `floor`.
fn points(line: &Line, floor: impl Fn(f64, f64) -> f64) -> Vec<(f64, f64, f64, f64)> {
    line.points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            p.filter(|(m, ci)| m.is_finite() && ci.is_finite())
                .map(|(m, ci)| {
                    #[allow(clippy::cast_precision_loss)]
                    let x = i as f64;
                    (x, m, floor(m, ci), m + ci)
                })
        })
        .collect()
}

fn labels(
    root: &Area<'_>,
    xs: &[String],
    x_label: &str,
    at: impl Fn(usize) -> (i32, i32),
) -> Result<(), String> {
    let style = font(14.0)
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let mut middle = (0, 0);
    for (i, label) in xs.iter().enumerate() {
        let (x, y) = at(i);
        root.draw(&Text::new(label.clone(), (x, y + 8), style.clone()))
            .map_err(err)?;
        if i == xs.len() / 2 {
            middle = (x, y);
        }
    }
    if xs.len() % 2 == 0 && xs.len() >= 2 {
        let (a, _) = at(xs.len() / 2 - 1);
        middle.0 = (a + middle.0) / 2;
    }
    root.draw(&Text::new(
        x_label.to_owned(),
        (middle.0, middle.1 + 30),
        font(15.0)
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_linear_and_log_panels() {
        let line = |name: &str, k: f64| Line {
            name: name.into(),
            points: vec![Some((k, 0.5)), None, Some((10.0 * k, 1.0))],
        };
        let panel = |log_y| Panel {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            xs: vec!["4".into(), "6".into(), "12".into()],
            lines: vec![line("fcfs", 1.0), line("bf-mod", 2.0)],
            log_y,
        };
        let svg = chart("title", "sub", &[panel(false), panel(true)]).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("bf-mod") && svg.contains("\n12\n"));
        assert_eq!(color("bf-unmod", 0), RGBColor(0xE6, 0x9F, 0x00));
    }
}
