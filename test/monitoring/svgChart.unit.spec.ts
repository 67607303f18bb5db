import { expect } from 'chai';
import { latestPoint, svgChart } from '#web/monitoring/svgChart.ts';
import type { Series } from '#web/monitoring/prometheusQuery.ts';

const T0 = Date.UTC(2026, 10, 27, 10, 0) / 1000;
const series = (points: Array<[number, number]>): Series[] => [{ labels: {}, points: points.map(([t, v]) => ({ t: T0 + t, v })) }];
const options = { title: 'Memory of <acme> & co', format: (v: number) => `${v} B`, gapS: 30 };

describe('the SVG line chart', () => {
  it('is a named image with the axis bounds and the period in UTC', () => {
    const svg = svgChart(series([[0, 10], [600, 40], [1200, 20]]), { ...options, gapS: 600 });
    expect(svg).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" role="img" viewBox="0 0 480 180" class="chart"><title>Memory of &#60;acme&#62; &#38; co<\/title>/);
    expect(svg).to.include('>40 B</text>').and.include('>0 B</text>');
    expect(svg).to.include('>10:00 UTC</text>').and.include('>10:20 UTC</text>');
    expect(svg.match(/<polyline /g)).to.have.length(1);
  });

  it('draws the lowest point at the bottom and the highest at the top of the plot', () => {
    const svg = svgChart(series([[0, 0], [30, 100]]), options);
    // Plot: x 64..468, y 10..156 (180 high, margins 10 top and 24 bottom).
    expect(svg).to.include('points="64,156 468,10"');
  });

  it('breaks the line where points are further apart than the gap, and marks a lone point', () => {
    const svg = svgChart(series([[0, 1], [10, 2], [100, 3], [200, 4], [210, 5]]), options);
    expect(svg.match(/<polyline /g)).to.have.length(2);
    expect(svg.match(/<circle /g)).to.have.length(1);
  });

  it('uses the bounds it is given (up/down is 0..1 whatever the values)', () => {
    const svg = svgChart(series([[0, 1], [10, 1]]), { ...options, minimum: 0, maximum: 1 });
    expect(svg).to.include('>1 B</text>').and.include('>0 B</text>');
    expect(svg).to.include('points="64,10 468,10"');
  });

  it('is an empty named image without points, and the latest point is the newest of all series', () => {
    expect(svgChart([], options)).to.equal('<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 480 180" class="chart"><title>Memory of &#60;acme&#62; &#38; co</title></svg>');
    expect(latestPoint([...series([[0, 1], [30, 2]]), ...series([[20, 9]])])).to.deep.equal({ t: T0 + 30, v: 2 });
    expect(latestPoint([])).to.equal(undefined);
  });
});
