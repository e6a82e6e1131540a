// A live line chart over lightweight-charts (served by the service from its own node_modules).
import { createChart, LineSeries } from '/ui/lightweight-charts.js';

/**
 * Creates a line chart in `container`. `push(timeMs, value)` appends or replaces the point of
 * that second (the library wants one point per time and times in order; older points are dropped).
 * @param {HTMLElement} container
 * @param {{ color?: string, precision?: number }} [options]
 */
export function lineChart(container, options = {}) {
  const precision = options.precision ?? 2;
  const chart = createChart(container, {
    autoSize: true,
    layout: { background: { color: 'transparent' }, textColor: '#c9d1d9', attributionLogo: false },
    grid: { vertLines: { color: '#21262d' }, horzLines: { color: '#21262d' } },
    timeScale: { timeVisible: true, secondsVisible: true, borderColor: '#30363d' },
    rightPriceScale: { borderColor: '#30363d' },
  });
  const series = chart.addSeries(LineSeries, {
    color: options.color ?? '#58a6ff',
    lineWidth: 2,
    priceFormat: { type: 'price', precision, minMove: 1 / 10 ** precision },
  });
  let last = -Infinity;
  let points = 0;
  return {
    chart,
    series,
    /** number of points drawn */
    get points() {
      return points;
    },
    push(timeMs, value) {
      const time = Math.floor(timeMs / 1000);
      if (!Number.isFinite(value) || time < last) return;
      if (time > last) points++;
      last = time;
      series.update({ time, value });
      container.dataset.points = String(points);
      // while the history is short, show all of it rather than the library's default bar spacing
      if (points <= 300) chart.timeScale().fitContent();
    },
    /** replaces every point ([timeMs, value] pairs, any order) */
    set(pairs) {
      const bySecond = new Map();
      for (const [ms, v] of pairs) if (Number.isFinite(v)) bySecond.set(Math.floor(ms / 1000), v);
      const data = [...bySecond].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time, value }));
      series.setData(data);
      points = data.length;
      last = data.length ? data[data.length - 1].time : -Infinity;
      container.dataset.points = String(points);
      chart.timeScale().fitContent();
    },
  };
}
