import { useLocation } from 'react-router';
import { NotFoundPage } from '../components/error-pages.tsx';

export const meta = () => [{ title: 'Page not found · Spawnpoint' }, { name: 'robots', content: 'noindex' }];

export default function NotFound() {
  return <NotFoundPage path={useLocation().pathname} />;
}
