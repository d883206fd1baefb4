import { describe, expect, it } from 'vitest'
import { widgetOptions } from '../../web/widget/options'

describe('widgetOptions', () => {
  it('should read the defaults when the tag sets nothing', () => {
    expect(widgetOptions({}, ['de-AT'])).toEqual({
      languages: ['de-AT'],
      limit: 5,
      headingLevel: 3,
      target: null,
    })
  })

  it('should read the attributes of the script tag', () => {
    expect(widgetOptions({ lang: 'fr', limit: '12', headingLevel: '2', target: '#news' }, ['de'])).toEqual({
      languages: ['fr'],
      limit: 12,
      headingLevel: 2,
      target: '#news',
    })
  })

  it('should keep numbers in range and ignore what is not a number', () => {
    expect(widgetOptions({ limit: '0', headingLevel: '9' }, []).limit).toBe(1)
    expect(widgetOptions({ limit: '500' }, []).limit).toBe(50)
    expect(widgetOptions({ limit: 'all', headingLevel: 'h2' }, [])).toMatchObject({
      limit: 5,
      headingLevel: 3,
    })
    expect(widgetOptions({ headingLevel: '9' }, []).headingLevel).toBe(6)
  })
})
