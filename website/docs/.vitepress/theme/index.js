// The default VitePress theme plus the BenchmarkChart component used by the benchmarking page.
import DefaultTheme from 'vitepress/theme';
import BenchmarkChart from './BenchmarkChart.vue';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('BenchmarkChart', BenchmarkChart);
  },
};
