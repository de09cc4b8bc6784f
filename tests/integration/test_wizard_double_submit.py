"""A double click on "Create and apply": two POSTs of one submission token at the same moment, each on
its own database connection. The second waits for the first (the token's advisory lock), then answers with a redirect
to the fabric the first created: one fabric, one apply, no IntegrityError page."""

import threading

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client

from dcim.models import Device
from users.models import User

from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.models import Fabric
from tests.integration.test_wizard import url
from tests.integration.test_wizard_defaults import NAMED, defaults

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


def walk_defaults(client, site):
    for step in ('design', 'topology', 'pools', 'intent'):
        data = defaults(client.get(url(step)).context['form'])
        if step == 'design':
            data.update(NAMED, site=site.pk)
        assert client.post(url(step), data).status_code == 302, step
    return client.get(url('preview'))


def test_two_posts_of_one_submission_at_once_create_one_fabric():
    load_demo()
    load_config_templates()
    user = User.objects.create_user(username='double', is_superuser=True)
    first = Client()
    first.force_login(user)
    token = walk_defaults(first, Fabric.objects.get(slug='ai-lab-fabric').site).context['submission']
    second = Client()
    second.cookies = first.cookies  # the same browser session: the same wizard state
    barrier = threading.Barrier(2)
    answers, errors = {}, []

    def post(name, client):
        try:
            barrier.wait(timeout=30)
            answers[name] = client.post(url('preview'), {'_apply': '1', 'submission': token, 'background': '0'})
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=item) for item in (('first', first), ('second', second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)

    assert errors == []
    fabric = Fabric.objects.get(slug=NAMED['slug'])
    assert Fabric.objects.count() == 2  # the demo's and this one
    assert {name: answer.status_code for name, answer in answers.items()} == {'first': 302, 'second': 302}
    assert {answer['Location'] for answer in answers.values()} == {fabric.get_absolute_url()}
    assert Device.objects.filter(name__startswith=f'{NAMED["slug"]}-').count() == 9
    said = [str(m) for answer in answers.values() for m in get_messages(answer.wsgi_request)]
    assert sorted(said) == sorted(
        [
            f'Fabric {fabric} created and applied.',
            f'This form was submitted already: that submission created the fabric {fabric}.',
        ]
    ), said
