// The baseline of the HTTP benchmarks: a bare node:http server, in its own process,
// answering each path with fixed bytes: the very body and headers tonwatch answered it
// with (http.mjs picks which headers). `node bare-server.mjs PORT ANSWERS.json`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, answersFile] = process.argv.slice(2);
/**
 * [{ path, acceptEncoding, headers, bodyFile }]: path includes the query string; the same
 * path may be answered in gzip or identity, as the request's Accept-Encoding says.
 */
const keyOf = (path, acceptEncoding) => `${path}\n${acceptEncoding ?? ''}`;
const answers = new Map(
  JSON.parse(readFileSync(answersFile, 'utf8')).map(({ path, acceptEncoding, headers, bodyFile }) => {
    const body = readFileSync(bodyFile);
    return [keyOf(path, acceptEncoding), { headers: { ...headers, 'content-length': String(body.length) }, body }];
  }),
);

createServer((req, res) => {
  const answer = answers.get(keyOf(req.url, req.headers['accept-encoding']));
  if (answer === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, answer.headers);
  res.end(answer.body);
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
