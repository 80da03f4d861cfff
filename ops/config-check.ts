// `npm run config:check`: loads the configuration from this environment as a deployment would and lists every problem
// at once (docs/deploy.md#required-production-settings); exit 1 when there is one.
import { configReport } from './config-check/report.ts';

const report = configReport(process.env);
(report.ok ? console.log : console.error)(report.text);
process.exitCode = report.ok ? 0 : 1;
