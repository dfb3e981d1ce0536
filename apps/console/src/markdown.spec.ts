import { parseMarkdown, plainText, safeHref } from './markdown';

describe('console markdown subset of event summaries', () => {
  it('reads bold, http(s) links (inside bold too) and code', () => {
    expect(
      parseMarkdown(
        '**admin** created **[f.one](http://u/projects/p/features/f.one)** in project **[p](https://u/projects/p)** `x`',
      ),
    ).toEqual([
      { kind: 'bold', children: [{ kind: 'text', text: 'admin' }] },
      { kind: 'text', text: ' created ' },
      {
        kind: 'bold',
        children: [
          {
            kind: 'link',
            href: 'http://u/projects/p/features/f.one',
            children: [{ kind: 'text', text: 'f.one' }],
          },
        ],
      },
      { kind: 'text', text: ' in project ' },
      {
        kind: 'bold',
        children: [{ kind: 'link', href: 'https://u/projects/p', children: [{ kind: 'text', text: 'p' }] }],
      },
      { kind: 'text', text: ' ' },
      { kind: 'code', text: 'x' },
    ]);
  });

  it('keeps HTML and links to other schemes as text', () => {
    const html = '**<img src=x onerror=alert(1)>** triggered **x**';
    expect(parseMarkdown(html)[0]).toEqual({
      kind: 'bold',
      children: [{ kind: 'text', text: '<img src=x onerror=alert(1)>' }],
    });
    expect(parseMarkdown('[a](javascript:alert(1))')).toEqual([
      { kind: 'text', text: '[a](javascript:alert(1))' },
    ]);
    expect(parseMarkdown('[a](data:text/html,x)')).toEqual([{ kind: 'text', text: '[a](data:text/html,x)' }]);
    expect(safeHref('JAVASCRIPT:alert(1)')).toBeNull();
    expect(safeHref('//evil')).toBeNull();
    expect(safeHref('https://ok/x')).toBe('https://ok/x');
  });

  it('leaves unclosed markers as written, and an empty bold (`**` alone) as text', () => {
    expect(plainText(parseMarkdown('a ** b `c [d](e'))).toBe('a ** b `c [d](e');
    expect(parseMarkdown('** x')).toEqual([{ kind: 'text', text: '** x' }]);
    expect(plainText(parseMarkdown('****'))).toBe('****');
  });
});
